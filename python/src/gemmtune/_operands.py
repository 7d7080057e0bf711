"""Operands of a GEMM from the arrays a caller hands in: torch tensors (read directly, the fast
path), objects with `__cuda_array_interface__` (CuPy, Numba, JAX), and anything that speaks
DLPack. Each becomes an Operand (pointer, rows, columns, strides in elements, dtype, device),
and a matrix's strides become the runtime's storage: row-major with a leading dimension, or its
transpose. Strides that neither expresses are an error, never a silent copy."""
from __future__ import annotations

import sys
from typing import NamedTuple, Optional, Tuple

from ._errors import ArgumentError, DeviceError, DtypeError

#: The precision each pair of input dtypes (a, b) implies; tf32 takes float32 operands (the
#: caller asks for it). e5m2 is an e5m2 a with an e4m3 b (FP8 training's gradient GEMMs).
PRECISION_OF_DTYPES = {("float32", "float32"): "fp32", ("float16", "float16"): "fp16",
                       ("bfloat16", "bfloat16"): "bf16",
                       ("float8_e4m3fn", "float8_e4m3fn"): "e4m3",
                       ("float8_e5m2", "float8_e4m3fn"): "e5m2"}
#: The dtypes (a, b) each precision takes.
_DTYPES_OF_PRECISION = {"fp32": ("float32", "float32"), "tf32": ("float32", "float32"),
                        "fp16": ("float16", "float16"), "bf16": ("bfloat16", "bfloat16")}
#: The precisions whose calls carry scales: one per operand, (row-wise) one per row of op(a)
#: and one per column of op(b), or (block-scaled) one per row of op(a) and 128 of K and one per
#: 128×128 block of op(b).
FP8_PRECISIONS = ("e4m3", "e4m3-row", "e4m3-blk", "e5m2", "e5m2-row", "e5m2-blk")
ROW_SCALED_PRECISIONS = ("e4m3-row", "e5m2-row")
BLOCK_SCALED_PRECISIONS = ("e4m3-blk", "e5m2-blk")
for _p in FP8_PRECISIONS:
    _DTYPES_OF_PRECISION[_p] = ("float8_e5m2" if _p.startswith("e5m2") else "float8_e4m3fn",
                                "float8_e4m3fn")


def fp8_base(precision: str) -> str:
    """The element pair of an FP8 precision without its scaling: "e4m3" or "e5m2"."""
    return precision.partition("-")[0]


def out_dtype(precision: str) -> str:
    """The dtype of the output of a call in `precision`: FP8 products are written in bf16,
    every other precision in its inputs' dtype."""
    return "bfloat16" if precision in FP8_PRECISIONS else _DTYPES_OF_PRECISION[precision][0]

# __cuda_array_interface__ type strings of the dtypes above (bfloat16 has none).
_TYPESTR = {"<f4": "float32", "<f2": "float16", "<f8": "float64"}


class Operand(NamedTuple):
    ptr: int
    rows: int
    cols: int
    row_stride: int  #: in elements
    col_stride: int  #: in elements
    dtype: str  #: "float32", "float16", "bfloat16", or another library's name for what it is
    device: Optional[int]  #: CUDA device index; None where the array does not say
    stream: Optional[int] = None  #: the producer's stream (__cuda_array_interface__ v3)


def _torch_operand(t, name: str) -> Operand:
    device = t.device
    if device.type != "cuda":
        raise DeviceError(f"gemmtune: {name} is on {device}; matmul takes CUDA tensors")
    if t.dim() != 2:
        raise ArgumentError(f"gemmtune: {name} has {t.dim()} dimensions; matmul takes 2-D "
                            "matrices (flatten the leading dimensions first)")
    rows, cols = t.shape
    s0, s1 = t.stride()
    return Operand(t.data_ptr(), rows, cols, s0, s1, str(t.dtype).rpartition(".")[2],
                   device.index)


def _cai_operand(cai: dict, name: str) -> Operand:
    shape = tuple(cai["shape"])
    if len(shape) != 2:
        raise ArgumentError(f"gemmtune: {name} has {len(shape)} dimensions; matmul takes 2-D "
                            "matrices")
    typestr = cai["typestr"]
    dtype = _TYPESTR.get(typestr, typestr)
    size = int(typestr[2:]) if typestr[2:].isdigit() else 0
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        s0, s1 = shape[1], 1
    else:
        if size == 0 or any(s % size for s in strides):
            raise ArgumentError(f"gemmtune: {name}'s byte strides {tuple(strides)} are not whole "
                                f"elements of {typestr}")
        s0, s1 = strides[0] // size, strides[1] // size
    stream = cai.get("stream")
    return Operand(int(cai["data"][0]), shape[0], shape[1], s0, s1, dtype, None,
                   int(stream) if stream else None)


def operand(x, name: str) -> Operand:
    """The Operand of array `x` (named `name` in errors)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _torch_operand(x, name)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        return _cai_operand(cai, name)
    if hasattr(x, "__dlpack__"):
        from . import _runtime
        try:
            ptr, shape, strides, dtype, kind, device = _runtime.describe_dlpack(x)
        except TypeError as e:
            raise ArgumentError(f"gemmtune: {name} could not be read through DLPack: {e}") from e
        if kind != "cuda":
            raise DeviceError(f"gemmtune: {name} is on {kind}; matmul takes CUDA arrays")
        if len(shape) != 2:
            raise ArgumentError(f"gemmtune: {name} has {len(shape)} dimensions; matmul takes "
                                "2-D matrices")
        return Operand(ptr, shape[0], shape[1], strides[0], strides[1], dtype, device)
    raise DtypeError(f"gemmtune: {name} is a {type(x).__name__}, not an array gemmtune can "
                     "read (a torch tensor, __cuda_array_interface__ or DLPack)")


def storage(rows: int, cols: int, row_stride: int, col_stride: int,
            name: str) -> Tuple[bool, int]:
    """How a rows×cols matrix with these element strides is stored, as the runtime takes it:
    (False, ld) row-major with leading dimension ld ≥ cols, or (True, ld) its transpose stored
    row-major (cols×rows, ld ≥ rows). A dimension of extent 1 (or 0) takes any stride."""
    row_ok = rows <= 1 or row_stride >= max(cols, 1)
    col_ok = cols <= 1 or col_stride >= max(rows, 1)
    if (cols <= 1 or col_stride == 1) and row_ok:
        return False, row_stride if rows > 1 else max(cols, 1)
    if (rows <= 1 or row_stride == 1) and col_ok:
        return True, col_stride if cols > 1 else max(rows, 1)
    raise ArgumentError(
        f"gemmtune: {name} ({rows}×{cols}, strides ({row_stride}, {col_stride}) in elements) is "
        "neither row-major nor transposed row-major with a leading dimension; make it "
        "contiguous")


def input_precision(dtypes: Tuple[str, ...], precision: Optional[str], names: Tuple[str, ...],
                    known: dict) -> str:
    """The precision of a call whose inputs (a, b) have these dtypes: `precision` when given (it
    must take them), else the one the pair implies (matching dtypes, or an e5m2 a with an e4m3
    b)."""
    pair = tuple(dtypes)
    listed = ", ".join(f"{n} {d}" for n, d in zip(names, dtypes))
    if precision is None:
        if pair in PRECISION_OF_DTYPES:
            return PRECISION_OF_DTYPES[pair]
        if pair == ("float8_e4m3fn", "float8_e5m2"):
            raise DtypeError(f"gemmtune: {listed}: FP8 GEMMs take the e5m2 operand as a (e5m2 "
                             "a, e4m3 b); compute the transpose, op(b)ᵀ·op(a)ᵀ, instead")
        if len(set(pair)) != 1:
            raise DtypeError(f"gemmtune: the operands' dtypes differ ({listed}); they must "
                             "match, or be an e5m2 a with an e4m3 b")
        raise DtypeError(f"gemmtune: no precision takes {pair[0]} operands (float32, float16, "
                         "bfloat16, float8_e4m3fn, or float8_e5m2 a with float8_e4m3fn b)")
    if precision not in known:
        raise ArgumentError(f"gemmtune: unknown precision '{precision}' "
                            f"(one of {', '.join(known)})")
    want = _DTYPES_OF_PRECISION.get(precision)
    if want != pair:
        if want[0] == want[1] and pair[0] == pair[1]:
            raise DtypeError(f"gemmtune: precision {precision} takes {want[0]} operands, not "
                             f"{pair[0]}")
        raise DtypeError(f"gemmtune: precision {precision} takes a {want[0]} and b {want[1]}, "
                         f"not {listed}")
    return precision


def precision_for(dtypes: Tuple[str, ...], precision: Optional[str], names: Tuple[str, ...],
                  known: dict) -> str:
    """The precision of a call whose a, b and out have these dtypes (input_precision of a and
    b), with out in the precision's output dtype: the inputs' own, bfloat16 for FP8."""
    prec = input_precision(dtypes[:-1], precision, names[:-1], known)
    if dtypes[-1] != out_dtype(prec):
        if (dtypes[-1], dtypes[-1]) in PRECISION_OF_DTYPES and out_dtype(prec) == dtypes[0]:
            listed = ", ".join(f"{n} {d}" for n, d in zip(names, dtypes))
            raise DtypeError(f"gemmtune: the operands' dtypes differ ({listed}); they must "
                             "match")
        raise DtypeError(f"gemmtune: {prec} writes {out_dtype(prec)} output; {names[-1]} is "
                         f"{dtypes[-1]}")
    return prec
