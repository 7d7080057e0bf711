"""How arrays become GEMM operands: strides to storage, dtypes to precisions, and the errors for
what the runtime cannot take. No GPU needed."""
import pytest

import gemmtune
from gemmtune import _operands
from gemmtune._operands import input_precision, operand, out_dtype, precision_for, storage

PRECISIONS = gemmtune._runtime.PRECISIONS


@pytest.mark.parametrize("rows, cols, strides, expected", [
    (8, 4, (4, 1), (False, 4)),     # row-major, packed
    (8, 4, (16, 1), (False, 16)),   # row-major, padded rows
    (8, 4, (1, 8), (True, 8)),      # a transposed view of a 4×8 row-major matrix
    (8, 4, (1, 32), (True, 32)),    # ... of a padded one
    (1, 4, (999, 1), (False, 4)),   # one row: its stride is never used
    (8, 1, (1, 1), (False, 1)),     # a column vector, contiguous
    (8, 1, (1, 64), (False, 1)),    # the same, whatever the unused stride
    (1, 1, (0, 0), (False, 1)),
    (0, 4, (4, 1), (False, 4)),     # empty matrices are valid GEMMs
    (4, 0, (1, 1), (False, 1)),
])
def test_storage_of_strides(rows, cols, strides, expected):
    assert storage(rows, cols, strides[0], strides[1], "x") == expected


@pytest.mark.parametrize("rows, cols, strides", [
    (8, 4, (8, 2)),   # every other column
    (8, 4, (2, 8)),   # neither stride is 1
    (8, 4, (3, 1)),   # rows overlap
    (8, 4, (1, 4)),   # columns overlap in the transposed reading
    (8, 4, (0, 1)),   # broadcast rows
])
def test_strides_no_leading_dimension_expresses_are_refused(rows, cols, strides):
    with pytest.raises(gemmtune.ArgumentError, match="make it contiguous"):
        storage(rows, cols, strides[0], strides[1], "x")


def test_precision_follows_the_dtype_or_the_caller():
    assert precision_for(("float32",) * 3, None, "abc", PRECISIONS) == "fp32"
    assert precision_for(("float16",) * 3, None, "abc", PRECISIONS) == "fp16"
    assert precision_for(("bfloat16",) * 3, None, "abc", PRECISIONS) == "bf16"
    assert precision_for(("float32",) * 3, "tf32", "abc", PRECISIONS) == "tf32"
    with pytest.raises(gemmtune.DtypeError, match="tf32 takes float32 operands, not float16"):
        precision_for(("float16",) * 3, "tf32", "abc", PRECISIONS)
    with pytest.raises(gemmtune.DtypeError, match="no precision takes float64"):
        precision_for(("float64",) * 3, None, "abc", PRECISIONS)
    with pytest.raises(gemmtune.DtypeError, match="a float16, b float32"):
        precision_for(("float16", "float32", "float16"), None, ("a", "b", "out"), PRECISIONS)
    with pytest.raises(gemmtune.ArgumentError, match="unknown precision 'fp8'"):
        precision_for(("float32",) * 3, "fp8", "abc", PRECISIONS)
    # A DtypeError is a TypeError too, and every error a GemmError.
    with pytest.raises(TypeError):
        precision_for(("int8",) * 3, None, "abc", PRECISIONS)
    # FP8 inputs write bfloat16 output, and only that.
    fp8 = ("float8_e4m3fn", "float8_e4m3fn", "bfloat16")
    assert precision_for(fp8, None, ("a", "b", "out"), PRECISIONS) == "e4m3"
    assert precision_for(fp8, "e4m3", ("a", "b", "out"), PRECISIONS) == "e4m3"
    assert input_precision(fp8[:2], None, ("a", "b"), PRECISIONS) == "e4m3"
    assert out_dtype("e4m3") == "bfloat16" and out_dtype("tf32") == "float32"
    with pytest.raises(gemmtune.DtypeError, match="e4m3 writes bfloat16 output; out is float32"):
        precision_for(fp8[:2] + ("float32",), None, ("a", "b", "out"), PRECISIONS)
    with pytest.raises(gemmtune.DtypeError, match="e4m3 writes bfloat16 output"):
        precision_for(fp8[:2] + ("float8_e4m3fn",), None, ("a", "b", "out"), PRECISIONS)
    with pytest.raises(gemmtune.DtypeError, match="a float16, b float16, out bfloat16"):
        precision_for(("float16", "float16", "bfloat16"), None, ("a", "b", "out"), PRECISIONS)
    with pytest.raises(gemmtune.DtypeError, match="e4m3 takes float8_e4m3fn operands"):
        precision_for(("bfloat16",) * 3, "e4m3", ("a", "b", "out"), PRECISIONS)
    # e5m2: an e5m2 a with an e4m3 b, in each scaling; the e5m2 operand goes on the left.
    e5 = ("float8_e5m2", "float8_e4m3fn", "bfloat16")
    assert precision_for(e5, None, ("a", "b", "out"), PRECISIONS) == "e5m2"
    for p in ("e5m2", "e5m2-row", "e5m2-blk"):
        assert precision_for(e5, p, ("a", "b", "out"), PRECISIONS) == p
        assert out_dtype(p) == "bfloat16"
    with pytest.raises(gemmtune.DtypeError, match="e5m2 operand as a"):
        precision_for(("float8_e4m3fn", "float8_e5m2", "bfloat16"), None, ("a", "b", "out"),
                      PRECISIONS)
    with pytest.raises(gemmtune.DtypeError, match="no precision takes float8_e5m2 operands"):
        precision_for(("float8_e5m2",) * 2 + ("bfloat16",), None, ("a", "b", "out"), PRECISIONS)
    with pytest.raises(gemmtune.DtypeError,
                       match="e5m2-row takes a float8_e5m2 and b float8_e4m3fn, not a "
                             "float8_e4m3fn, b float8_e4m3fn"):
        precision_for(fp8, "e5m2-row", ("a", "b", "out"), PRECISIONS)
    with pytest.raises(gemmtune.DtypeError, match="e4m3 takes a float8_e4m3fn and b"):
        precision_for(e5, "e4m3", ("a", "b", "out"), PRECISIONS)


def test_cuda_array_interface_is_read_in_elements(fake):
    op = operand(fake((8, 4), "<f2", strides=(64, 2), ptr=4096, stream=7), "a")
    assert op == _operands.Operand(4096, 8, 4, 32, 1, "float16", None, 7)
    contiguous = operand(fake((8, 4)), "a")
    assert (contiguous.row_stride, contiguous.col_stride, contiguous.dtype) == (4, 1, "float32")
    with pytest.raises(gemmtune.ArgumentError, match="not whole elements"):
        operand(fake((8, 4), "<f4", strides=(16, 2)), "a")
    with pytest.raises(gemmtune.ArgumentError, match="3 dimensions"):
        operand(fake((2, 8, 4)), "a")


def test_dlpack_arrays_on_the_host_are_refused_by_device():
    np = pytest.importorskip("numpy")
    with pytest.raises(gemmtune.DeviceError, match="a is on cpu"):
        operand(np.ones((4, 4), np.float32), "a")


def test_what_is_no_array_is_refused_by_type():
    with pytest.raises(gemmtune.DtypeError, match="a is a list"):
        operand([[1.0]], "a")
