"""Runtime and matmul without a GPU: tables load or are refused with the file named, every
argument check fires before the GPU, and a valid call reports the runtime's no-device status."""
import json

import pytest

import gemmtune
from conftest import needs_no_gpu


def test_runtime_loads_a_table_and_describes_it(table_path):
    rt = gemmtune.Runtime(table_path, cubin_cache="/tmp/gemmtune-test-cubins")
    entries = len(json.loads(table_path.read_text())["entries"])
    assert rt.table_entries == entries > 0
    assert "/tmp/gemmtune-test-cubins" in rt.describe()
    assert gemmtune.Runtime().table_entries == 0


def test_a_bad_table_is_refused_naming_the_file(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "gemmtune-table", "version": 1, "entries": [{}]}')
    with pytest.raises(RuntimeError, match="broken.json"):
        gemmtune.Runtime(bad)
    with pytest.raises(RuntimeError, match="missing.json"):
        gemmtune.Runtime(tmp_path / "missing.json")


def test_argument_errors_come_before_the_gpu(fake):
    rt = gemmtune.Runtime()
    a, b, c = fake((8, 4)), fake((4, 16)), fake((8, 16))
    with pytest.raises(gemmtune.ArgumentError, match="inner dimensions differ"):
        rt.matmul(a, fake((5, 16)), c)
    with pytest.raises(gemmtune.ArgumentError, match="out is 8×8; the product is 8×16"):
        rt.matmul(a, b, fake((8, 8)))
    with pytest.raises(gemmtune.ArgumentError, match="out= is required"):
        rt.matmul(a, b)
    with pytest.raises(gemmtune.ArgumentError, match="beta is not 0"):
        rt.matmul(a, b, beta=1.0)
    with pytest.raises(gemmtune.ArgumentError, match="out must be row-major"):
        rt.matmul(a, b, fake((8, 16), strides=(4, 32)))
    with pytest.raises(gemmtune.DtypeError, match="dtypes differ"):
        rt.matmul(a, fake((4, 16), "<f2"), c)
    with pytest.raises(gemmtune.ArgumentError, match="not a CUDA stream handle"):
        rt.matmul(a, b, c, stream="default")
    # Scales belong to FP8 calls.
    with pytest.raises(gemmtune.ArgumentError, match="apply to FP8 calls only, not fp32"):
        rt.matmul(a, b, c, scale_a=4096, scale_b=4112)
    # trans_a reads a as K×M: 8×4 stored is op(a) 4×8, whose K (8) does not meet b's 4.
    with pytest.raises(gemmtune.ArgumentError, match="op\\(a\\) is 4×8"):
        rt.matmul(a, b, c, trans_a=True)


@needs_no_gpu
def test_a_valid_call_without_a_gpu_says_no_device(fake):
    rt = gemmtune.Runtime()
    for trans_a, trans_b in [(False, False), (True, False), (False, True), (True, True)]:
        a = fake((4, 8) if trans_a else (8, 4))
        b = fake((16, 4) if trans_b else (4, 16))
        with pytest.raises(gemmtune.NoDeviceError) as e:
            rt.matmul(a, b, fake((8, 16)), trans_a=trans_a, trans_b=trans_b, stream=0)
        assert e.value.status == "no_device"
        assert e.value.info.path == "none"
        assert "no usable CUDA device" in e.value.info.detail
        assert "8x16x4 fp32" in str(e.value)


@needs_no_gpu
def test_the_default_runtime_reads_the_table_environment(monkeypatch, table_path, fake):
    monkeypatch.setenv(gemmtune.TABLE_ENV, str(table_path))
    gemmtune.set_default_runtime(None)
    try:
        assert gemmtune.default_runtime().table_entries > 0
        assert gemmtune.default_runtime() is gemmtune.default_runtime()
        with pytest.raises(gemmtune.NoDeviceError):
            gemmtune.matmul(fake((8, 4), "<f2"), fake((4, 16), "<f2"), fake((8, 16), "<f2"))
    finally:
        gemmtune.set_default_runtime(None)


def test_fp8_calls_reach_the_runtime_with_their_scales():
    # The extension takes FP8 calls through the runtime's overload with scales, so the runtime's
    # own checks answer: no scales, scales on another precision; a valid one goes on to the GPU.
    from gemmtune import _runtime
    rt = _runtime.Runtime()
    e4m3, bf16, nt = _runtime.PRECISIONS["e4m3"], _runtime.PRECISIONS["bf16"], _runtime.LAYOUTS["NT"]
    args = (64, 64, 64, 1.0, 4096, 64, 8192, 64, 0.0, 12288, 64, 0, True)
    status, _, _, _, _, detail = rt.gemm(e4m3, nt, *args)
    assert status == "invalid_argument" and "one scale per operand" in detail
    status, _, _, _, _, detail = rt.gemm(bf16, nt, *args, 16384, 16400)
    assert status == "invalid_argument" and "FP8 calls only" in detail
    status, _, _, _, _, detail = rt.gemm(e4m3, nt, *args, 16384, 16388)
    assert status == "invalid_argument" and "16-byte aligned" in detail


@needs_no_gpu
def test_an_fp8_call_with_scales_without_a_gpu_says_no_device():
    from gemmtune import _runtime
    rt = _runtime.Runtime()
    r = rt.gemm(_runtime.PRECISIONS["e4m3"], _runtime.LAYOUTS["NT"], 64, 64, 64, 1.0, 4096, 64,
                8192, 64, 0.0, 12288, 64, 0, True, 16384, 16400)
    assert r[0] == "no_device" and r[4] == 16


class _Scales:
    """A stand-in for a tensor of scales: what the scale rules read of one (its size)."""

    def __init__(self, count: int):
        self.count = count

    def numel(self) -> int:
        return self.count


def test_the_scales_sizes_choose_row_wise_fp8():
    from gemmtune._runtime_api import _scaled_precision
    # One scale each (or raw pointers): per-tensor. M and N of them: row-wise.
    assert _scaled_precision("e4m3", None, _Scales(1), _Scales(1), 64, 32) == "e4m3"
    assert _scaled_precision("e4m3", None, 4096, 4112, 64, 32) == "e4m3"
    assert _scaled_precision("e4m3", None, _Scales(64), _Scales(32), 64, 32) == "e4m3-row"
    # M = 1: one scale for A's single row and N for B's columns is row-wise too.
    assert _scaled_precision("e4m3", None, _Scales(1), _Scales(32), 1, 32) == "e4m3-row"
    # A precision the caller names is kept; other precisions are left alone.
    assert _scaled_precision("e4m3-row", "e4m3-row", 4096, 4112, 64, 32) == "e4m3-row"
    assert _scaled_precision("bf16", None, None, None, 64, 32) == "bf16"
    for sa, sb in ((_Scales(64), _Scales(1)), (_Scales(63), _Scales(32)), (_Scales(64), 4112)):
        with pytest.raises(gemmtune.ArgumentError, match="row-wise FP8 scales are a tensor of M = 64"):
            _scaled_precision("e4m3", None, sa, sb, 64, 32)


class _Blocks:
    """A 2-D scale tensor as far as the block-scale rules look at one: shape and strides."""

    def __init__(self, shape, stride):
        self.shape, self._stride = shape, stride

    def dim(self) -> int:
        return len(self.shape)

    def stride(self):
        return self._stride

    def numel(self) -> int:
        return self.shape[0] * self.shape[1]


def test_block_shaped_scales_choose_block_scaled_fp8():
    from gemmtune._runtime_api import _scaled_precision
    # M = 64, N = 300, K = 4112: 33 K blocks, B's rows of them padded to 36; torch's blockwise
    # layouts: A's (M, 33) with strides (1, M), B's (3, 33) with strides (36, 1) or transposed.
    sa = _Blocks((64, 33), (1, 64))
    for sb in (_Blocks((3, 33), (36, 1)), _Blocks((33, 3), (1, 36))):
        assert _scaled_precision("e4m3", None, sa, sb, 64, 300, 4112) == "e4m3-blk"
    # A row-major (M, 33) A scale or unpadded B rows are not the layout: row-wise rules apply,
    # and their counts are not M and N either.
    for a, b in ((_Blocks((64, 33), (33, 1)), _Blocks((3, 33), (36, 1))),
                 (sa, _Blocks((3, 33), (33, 1)))):
        with pytest.raises(gemmtune.ArgumentError, match="block scales are shaped"):
            _scaled_precision("e4m3", None, a, b, 64, 300, 4112)
    # K = 4096 (32 blocks, no padding) and one N block: a single-row B scale of any stride.
    assert _scaled_precision("e4m3", None, _Blocks((8, 32), (1, 8)), _Blocks((1, 32), (99, 1)),
                             8, 128, 4096) == "e4m3-blk"
    # Row-wise vectors stay row-wise.
    assert _scaled_precision("e4m3", None, _Scales(64), _Scales(300), 64, 300, 4112) == "e4m3-row"
    # e5m2 (an e5m2 a) takes the same scalings under its own names.
    assert _scaled_precision("e5m2", None, sa, _Blocks((3, 33), (36, 1)), 64, 300,
                             4112) == "e5m2-blk"
    assert _scaled_precision("e5m2", None, _Scales(64), _Scales(300), 64, 300, 4112) == "e5m2-row"
    assert _scaled_precision("e5m2", None, 4096, 4112, 64, 300, 4112) == "e5m2"
    with pytest.raises(gemmtune.ArgumentError, match="precision='e5m2-row' or 'e5m2-blk'"):
        _scaled_precision("e5m2", None, _Scales(64), 4112, 64, 300, 4112)


def test_block_scaled_fp8_calls_reach_the_runtime_with_their_pointers():
    from gemmtune import _runtime
    from gemmtune._runtime_api import _scale_pointers
    rt = _runtime.Runtime()
    blk, nt = _runtime.PRECISIONS["e4m3-blk"], _runtime.LAYOUTS["NT"]
    args = (64, 64, 256, 1.0, 4096, 256, 8192, 256, 0.0, 12288, 64, 0, True)
    status, _, _, _, _, detail = rt.gemm(blk, nt, *args)
    assert status == "invalid_argument" and "block scales per operand" in detail
    with pytest.raises(gemmtune.ArgumentError, match="block scales of op"):
        _scale_pointers("e4m3-blk", None, 4096, 64, 64, 256)
    assert _scale_pointers("e4m3-blk", 4096, 8192, 64, 64, 256) == (4096, 8192)


def test_row_wise_fp8_calls_reach_the_runtime_with_their_vectors():
    from gemmtune import _runtime
    from gemmtune._runtime_api import _scale_pointers
    rt = _runtime.Runtime()
    row, nt = _runtime.PRECISIONS["e4m3-row"], _runtime.LAYOUTS["NT"]
    args = (64, 64, 64, 1.0, 4096, 64, 8192, 64, 0.0, 12288, 64, 0, True)
    status, _, _, _, _, detail = rt.gemm(row, nt, *args)
    assert status == "invalid_argument" and "a vector of scales per operand" in detail
    with pytest.raises(gemmtune.ArgumentError, match="row-wise scales of op"):
        _scale_pointers("e4m3-row", None, 4096, 64, 64)
    assert _scale_pointers("e4m3-row", 4096, 8192, 64, 64) == (4096, 8192)
