"""gemmtune.Runtime: a tuning table's kernels for torch tensors and other CUDA arrays, on the
caller's current stream, over the runtime library (the extension gemmtune._runtime). It checks
what it is given, computes the layout and leading dimensions from the strides, and queues one
call; it never synchronises, and allocates only the output of a call without `out=` (through
torch's caching allocator)."""
from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Optional, Tuple, Union

from . import _runtime
from ._errors import ArgumentError, DeviceError, GemmInfo, error_for
from ._operands import (BLOCK_SCALED_PRECISIONS, FP8_PRECISIONS, PRECISION_OF_DTYPES,
                        ROW_SCALED_PRECISIONS, Operand, input_precision, operand, out_dtype,
                        precision_for, storage)

TABLE_ENV = "GEMMTUNE_TABLE"


def _stream_handle(stream) -> int:
    """A raw cudaStream_t from an int, a torch/CuPy/Numba stream object, or None (0: the
    legacy default stream)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise ArgumentError(f"gemmtune: stream {stream!r} is not a CUDA stream handle")


class Runtime:
    """Runs GEMMs with the kernels of a tuning table (cuBLAS where the table has nothing that
    can run the call), as the C++ gemmtune::Runtime does: the same lookup, the same fallbacks.

    `table`: a table written by `gemmtune export` (None: every call uses cuBLAS).
    `cubin_cache`: where compiled kernels are kept (default $GEMMTUNE_CUBIN_CACHE, else the
    user's cache folder). `use_tuned=False` sends every call to cuBLAS, to compare against."""

    def __init__(self, table: Optional[Union[str, os.PathLike]] = None,
                 cubin_cache: Optional[Union[str, os.PathLike]] = None, use_tuned: bool = True):
        self.table = os.fspath(table) if table is not None else None
        self._rt = _runtime.Runtime(self.table,
                                    os.fspath(cubin_cache) if cubin_cache is not None else None,
                                    use_tuned)

    @property
    def table_entries(self) -> int:
        """Entries of the loaded table (0 without one)."""
        return self._rt.table_entries

    def describe(self) -> str:
        """One line: the table's origin and size, and the cubin cache folder."""
        return self._rt.describe()

    def __repr__(self) -> str:
        return f"gemmtune.Runtime({self.describe()})"

    def matmul(self, a, b, out=None, *, alpha: float = 1.0, beta: float = 0.0,
               trans_a: bool = False, trans_b: bool = False, precision: Optional[str] = None,
               stream=None, info: bool = False, scale_a=None, scale_b=None):
        """out = alpha·op(a)·op(b) + beta·out, with op(x) = xᵀ where trans_x is set.

        op(a) is M×K and op(b) K×N; each may be row-major or a transposed view (any leading
        dimension), `out` (M×N) row-major. The precision follows the dtypes (float32 → fp32,
        float16 → fp16, bfloat16 → bf16, float8_e4m3fn → e4m3, and an a of float8_e5m2 with a b
        of float8_e4m3fn → e5m2, whose scalings are e4m3's); `precision="tf32"` runs float32
        operands on tensor cores. FP8 writes bfloat16 `out` and needs `scale_a` and `scale_b`,
        each a CUDA float32 tensor or a raw device pointer, 16-byte aligned: one scale each for
        a and b (e4m3: out = alpha·sa·sb·op(a)·op(b) + beta·out), or a contiguous vector of M
        for the rows of op(a) and one of N for the columns of op(b) (e4m3-row: out[i][j] =
        alpha·sa[i]·sb[j]·(op(a)·op(b))[i][j] + beta·out[i][j]; taken when the tensors hold M
        and N scales, or asked for with `precision="e4m3-row"`), or block scales as torch's
        blockwise _scaled_mm takes them (e4m3-blk: scale_a of shape (M, ⌈K/128⌉) with strides
        (1, M), a scale per row of op(a) and 128 of K; scale_b one per 128×128 block of op(b),
        of shape (⌈N/128⌉, ⌈K/128⌉) with strides (L, 1) or its transpose, L = ⌈K/128⌉ rounded
        up to 4; taken when the tensors are so shaped, or asked for with
        `precision="e4m3-blk"`). Its tensor cores read a row-major M×K `a` and `b` given as
        the transpose of a row-major N×K weight (trans_b=True, as torch.nn.Linear stores it) in
        place; tuned kernels copy other layouts K-major first, while cuBLASLt (the call without a
        table entry) takes only that one. Without `out`, torch
        tensors get a new one (beta must then be 0); other arrays must pass `out`. The call is
        queued on `stream` (default: torch's current stream for torch tensors, the stream an
        array's __cuda_array_interface__ names, else the legacy default stream). Returns `out`,
        or `(out, GemmInfo)` with `info=True`. Raises ArgumentError / DtypeError / DeviceError
        for what the call cannot take, NoDeviceError without a GPU, and GemmError when CUDA or
        cuBLAS refused the call."""
        if precision is None and stream is None and not info and scale_a is None and \
                scale_b is None:
            fast = _torch_fast_call(self._rt, a, b, out, alpha, beta, trans_a, trans_b)
            if fast is not None:
                return fast
        oa, ob = operand(a, "a"), operand(b, "b")
        torch = sys.modules.get("torch")
        is_torch = torch is not None and isinstance(a, torch.Tensor)
        if out is None:
            if beta != 0.0:
                raise ArgumentError("gemmtune: beta is not 0 but there is no out= to read")
            if not is_torch:
                raise ArgumentError("gemmtune: out= is required for arrays other than torch "
                                    "tensors")
        # op(x) of a stored x: the transpose swaps rows with columns and the two strides.
        m, k, sa = (oa.cols, oa.rows, (oa.col_stride, oa.row_stride)) if trans_a else \
                   (oa.rows, oa.cols, (oa.row_stride, oa.col_stride))
        kb, n, sb = (ob.cols, ob.rows, (ob.col_stride, ob.row_stride)) if trans_b else \
                    (ob.rows, ob.cols, (ob.row_stride, ob.col_stride))
        if kb != k:
            raise ArgumentError(f"gemmtune: op(a) is {m}×{k} and op(b) is {kb}×{n}; their inner "
                                "dimensions differ")
        ta, lda = storage(m, k, sa[0], sa[1], "op(a)")
        tb, ldb = storage(k, n, sb[0], sb[1], "op(b)")
        if out is None:
            # The inputs' precision decides the output's dtype (bfloat16 for FP8 inputs).
            in_prec = input_precision((oa.dtype, ob.dtype), precision, ("a", "b"),
                                      _runtime.PRECISIONS)
            out = torch.empty((m, n), dtype=getattr(torch, out_dtype(in_prec)), device=a.device)
        oc = operand(out, "out")
        if (oc.rows, oc.cols) != (m, n):
            raise ArgumentError(f"gemmtune: out is {oc.rows}×{oc.cols}; the product is {m}×{n}")
        transposed_c, ldc = storage(m, n, oc.row_stride, oc.col_stride, "out")
        if transposed_c and n > 1 and m > 1:
            raise ArgumentError(f"gemmtune: out must be row-major (strides (ldc, 1)); its "
                                f"strides are ({oc.row_stride}, {oc.col_stride})")
        prec = precision_for((oa.dtype, ob.dtype, oc.dtype), precision, ("a", "b", "out"),
                             _runtime.PRECISIONS)
        prec = _scaled_precision(prec, precision, scale_a, scale_b, m, n, k)
        scales = _scale_pointers(prec, scale_a, scale_b, m, n, k)
        devices = {d for d in (oa.device, ob.device, oc.device) if d is not None}
        if len(devices) > 1:
            raise DeviceError(f"gemmtune: the operands are on different devices "
                              f"(a cuda:{oa.device}, b cuda:{ob.device}, out cuda:{oc.device})")
        layout = _runtime.LAYOUTS[("T" if ta else "N") + ("T" if tb else "N")]
        device = devices.pop() if devices else None
        if is_torch:
            if stream is None:
                stream = _torch_stream(torch, device)
            if device is not None and device != torch.cuda.current_device():
                with torch.cuda.device(device):
                    r = self._call(prec, layout, m, n, k, alpha, oa, lda, ob, ldb, beta, oc, ldc,
                                   _stream_handle(stream), info, scales)
                return self._result(r, out, info, m, n, k, prec)
        elif stream is None:
            stream = oa.stream or ob.stream or oc.stream
        r = self._call(prec, layout, m, n, k, alpha, oa, lda, ob, ldb, beta, oc, ldc,
                       _stream_handle(stream), info, scales)
        return self._result(r, out, info, m, n, k, prec)

    def _call(self, prec: str, layout: int, m: int, n: int, k: int, alpha: float, oa: Operand,
              lda: int, ob: Operand, ldb: int, beta: float, oc: Operand, ldc: int, stream: int,
              info: bool, scales: Tuple[int, int] = (0, 0)):
        return self._rt.gemm(_runtime.PRECISIONS[prec], layout, m, n, k, float(alpha), oa.ptr,
                             lda, ob.ptr, ldb, float(beta), oc.ptr, ldc, stream, info, *scales)

    @staticmethod
    def _result(r, out, info: bool, m: int, n: int, k: int, prec: str):
        if r is None:
            return out
        gi = GemmInfo(*r)
        if gi.status != "ok":
            raise error_for(gi, f"{m}x{n}x{k} {prec}")
        return (out, gi) if info else out


def _scale_count(scale) -> Optional[int]:
    """How many scales a tensor holds; None for a raw pointer (or what is no tensor)."""
    numel = getattr(scale, "numel", None)
    return numel() if callable(numel) and not isinstance(scale, int) else None


def _scale_blocks(extent: int) -> int:
    """Blocks of 128 along K (or N): the block scales' extent."""
    return (extent + 127) // 128


def _block_strides(scale, rows: int, cols: int, row_stride: int, col_stride: int) -> bool:
    """Whether a 2-D tensor is the rows × cols matrix whose element (r, c) sits at
    r·row_stride + c·col_stride (strides of dimensions of one element do not matter), read as
    given or as its transpose."""
    if getattr(scale, "dim", None) is None or scale.dim() != 2:
        return False
    for shape, strides in (((rows, cols), (row_stride, col_stride)),
                           ((cols, rows), (col_stride, row_stride))):
        if tuple(scale.shape) == shape and all(
                size == 1 or stride == want
                for size, stride, want in zip(shape, scale.stride(), strides)):
            return True
    return False


def _is_block_scale_a(scale, m: int, k: int) -> bool:
    """A's block scales: (i, kb) at kb·M + i."""
    return _block_strides(scale, m, _scale_blocks(k), 1, m)


def _is_block_scale_b(scale, n: int, k: int) -> bool:
    """B's block scales: (nb, kb) at nb·L + kb, L = ⌈K/128⌉ rounded up to 4."""
    kblocks = _scale_blocks(k)
    return _block_strides(scale, _scale_blocks(n), kblocks, (kblocks + 3) // 4 * 4, 1)


def _scaled_precision(prec: str, asked: Optional[str], scale_a, scale_b, m: int,
                      n: int, k: int = 1) -> str:
    """The FP8 precision the scales make of `prec` (e4m3 or e5m2, per-tensor) when the caller did
    not name one: its block-scaled form (e4m3-blk, e5m2-blk) when the scale tensors are shaped
    as block scales, its row-wise form when they hold M and N scales (more than one between
    them), else `prec` itself."""
    if prec not in ("e4m3", "e5m2") or asked is not None:
        return prec
    if _is_block_scale_a(scale_a, m, k) and _is_block_scale_b(scale_b, n, k) and \
            not (_scale_count(scale_a) == m and _scale_count(scale_b) == n):
        return prec + "-blk"
    na, nb = _scale_count(scale_a), _scale_count(scale_b)
    if (na or 0) > 1 or (nb or 0) > 1:
        if na != m or nb != n:
            raise ArgumentError(
                f"gemmtune: row-wise FP8 scales are a tensor of M = {m} scales for the rows of "
                f"op(a) and one of N = {n} for the columns of op(b); block scales are shaped "
                f"(M, ceil(K/128)) = ({m}, {_scale_blocks(k)}) and (ceil(N/128), ceil(K/128)) = "
                f"({_scale_blocks(n)}, {_scale_blocks(k)}); scale_a holds "
                f"{'a pointer' if na is None else na} and scale_b "
                f"{'a pointer' if nb is None else nb} (pass precision='{prec}-row' or "
                f"'{prec}-blk' with pointers)")
        return prec + "-row"
    return prec


def _block_scale_pointer(scale, name: str, fits: bool, what: str) -> int:
    """The device address of a block-scale tensor that `fits` its layout, or a raw pointer."""
    if isinstance(scale, int):
        return scale
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(scale, torch.Tensor):
        raise ArgumentError(f"gemmtune: {name} is a {type(scale).__name__}; pass a CUDA float32 "
                            "tensor or a device pointer")
    if scale.device.type != "cuda":
        raise DeviceError(f"gemmtune: {name} is on {scale.device}; scales live in device memory")
    if scale.dtype != torch.float32 or not fits:
        raise ArgumentError(f"gemmtune: {name} must be {what}, not a "
                            f"{str(scale.dtype).rpartition('.')[2]} tensor of shape "
                            f"{tuple(scale.shape)} and strides {tuple(scale.stride())}")
    return scale.data_ptr()


def _scale_pointer(scale, name: str, count: int) -> int:
    """The device address of `count` scales: a contiguous CUDA float32 tensor of that many (its
    first element for one) or a raw pointer."""
    if isinstance(scale, int):
        return scale
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(scale, torch.Tensor):
        if scale.device.type != "cuda":
            raise DeviceError(f"gemmtune: {name} is on {scale.device}; scales live in device "
                              "memory")
        what = "one float32 scale" if count == 1 else f"{count} float32 scales, contiguous"
        if scale.dtype != torch.float32 or scale.numel() < count or \
                (count > 1 and (scale.numel() != count or not scale.is_contiguous())):
            raise ArgumentError(f"gemmtune: {name} must hold {what}, not "
                                f"{scale.numel()} {str(scale.dtype).rpartition('.')[2]}")
        return scale.data_ptr()
    raise ArgumentError(f"gemmtune: {name} is a {type(scale).__name__}; pass a CUDA float32 "
                        "tensor or a device pointer")


def _scale_pointers(prec: str, scale_a, scale_b, m: int = 1, n: int = 1,
                    k: int = 1) -> Tuple[int, int]:
    """(scale_a, scale_b) as device addresses for an FP8 call, (0, 0) for the others; an FP8
    call without both, or scales on another precision, is an ArgumentError."""
    if prec not in FP8_PRECISIONS:
        if scale_a is not None or scale_b is not None:
            raise ArgumentError(f"gemmtune: scale_a and scale_b apply to FP8 calls only, not "
                                f"{prec}")
        return 0, 0
    rows = prec in ROW_SCALED_PRECISIONS
    blocks = prec in BLOCK_SCALED_PRECISIONS
    if scale_a is None or scale_b is None:
        what = "the row-wise scales of op(a) and op(b)" if rows else \
               "the block scales of op(a) and op(b)" if blocks else \
               "the per-tensor scales of a and b"
        raise ArgumentError(f"gemmtune: {prec} calls need scale_a and scale_b, {what} in device "
                            "memory")
    if blocks:
        kb = _scale_blocks(k)
        return (_block_scale_pointer(scale_a, "scale_a", _is_block_scale_a(scale_a, m, k),
                                     f"float32 of shape ({m}, {kb}) with strides (1, {m})"),
                _block_scale_pointer(scale_b, "scale_b", _is_block_scale_b(scale_b, n, k),
                                     f"float32 of shape ({_scale_blocks(n)}, {kb}) with strides "
                                     f"({(kb + 3) // 4 * 4}, 1), or its transpose"))
    return (_scale_pointer(scale_a, "scale_a", m if rows else 1),
            _scale_pointer(scale_b, "scale_b", n if rows else 1))


class _TorchFast:
    """What the fast path needs of torch, looked up once: the plain tensor type, the runtime's
    precision code of each dtype, the layout codes, and torch's cheap current-device and
    current-stream calls."""

    def __init__(self, torch):
        self.tensor = torch.Tensor
        # FP8 calls carry scales: the general path takes them.
        self.precision = {getattr(torch, a): _runtime.PRECISIONS[name]
                          for (a, _), name in PRECISION_OF_DTYPES.items()
                          if name not in FP8_PRECISIONS and hasattr(torch, a)}
        self.names = {code: name for name, code in _runtime.PRECISIONS.items()}
        # Indexed by 2·(op(a) stored transposed) + (op(b) stored transposed).
        self.layout = tuple(_runtime.LAYOUTS[x] for x in ("NN", "NT", "TN", "TT"))
        self.current_device = getattr(torch._C, "_cuda_getDevice", None) or \
            torch.cuda.current_device
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.stream = raw if raw is not None else \
            (lambda index: torch.cuda.current_stream(index).cuda_stream)
        self.empty = torch.empty


_fast_state: Optional[_TorchFast] = None


def _torch_fast_call(rt, a, b, out, alpha, beta, trans_a, trans_b):
    """The call for the common torch case, with nothing but attribute reads and one call into
    the extension: plain CUDA tensors of one dtype on the current device, each stored
    row-major with a leading dimension (the transposes being views of those) and at least two
    rows and columns. Returns None for anything else, which the general path then takes (and
    where the errors are raised); a failure of the call itself raises as the general path
    does."""
    global _fast_state
    state = _fast_state
    if state is None:
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        state = _fast_state = _TorchFast(torch)
    tensor = state.tensor
    if type(a) is not tensor or type(b) is not tensor:
        return None
    prec = state.precision.get(a.dtype)
    if prec is None or b.dtype is not a.dtype:
        return None
    ash, bsh = a.shape, b.shape
    if len(ash) != 2 or len(bsh) != 2:
        return None
    (ar, ac), (br, bc) = ash, bsh
    (a0, a1), (b0, b1) = a.stride(), b.stride()
    if a1 != 1 or b1 != 1 or a0 < ac or b0 < bc or ar < 2 or ac < 2 or br < 2 or bc < 2:
        return None
    m, k = (ac, ar) if trans_a else (ar, ac)
    kb, n = (bc, br) if trans_b else (br, bc)
    if kb != k:
        return None
    device = a.get_device()
    if device < 0 or b.get_device() != device or device != state.current_device():
        return None
    if out is None:
        if beta != 0.0:
            return None
        out = state.empty((m, n), dtype=a.dtype, device=a.device)
        ldc = n
    else:
        if type(out) is not tensor or out.dtype is not a.dtype or out.get_device() != device:
            return None
        osh = out.shape
        if len(osh) != 2 or osh[0] != m or osh[1] != n:
            return None
        ldc, c1 = out.stride()
        if c1 != 1 or ldc < n:
            return None
    r = rt.gemm(prec, state.layout[2 * bool(trans_a) + bool(trans_b)], m, n, k, float(alpha),
                a.data_ptr(), a0, b.data_ptr(), b0, float(beta), out.data_ptr(), ldc,
                state.stream(device), False)
    if r is not None:
        raise error_for(GemmInfo(*r), f"{m}x{n}x{k} {state.names[prec]}")
    return out


def _torch_stream(torch, device: Optional[int]) -> int:
    """torch's current stream on `device`, as a raw handle (the cheap call torch's own kernels
    libraries use, else the public one)."""
    index = torch.cuda.current_device() if device is None else device
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream


_default: Optional[Runtime] = None
_default_lock = threading.Lock()


def default_runtime() -> Runtime:
    """The process's Runtime over $GEMMTUNE_TABLE (cuBLAS only when it is unset), made on first
    use; what gemmtune.matmul and the torch op run on."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Runtime(os.environ.get(TABLE_ENV) or None)
    return _default


def set_default_runtime(runtime: Optional[Runtime]) -> None:
    """Makes `runtime` the one gemmtune.matmul and the torch op use (None: $GEMMTUNE_TABLE's
    again, on next use)."""
    global _default
    with _default_lock:
        _default = runtime


@atexit.register
def _release_default_runtime() -> None:
    # The default runtime lives in this module's globals, which the interpreter clears only
    # after the extension has been torn down; dropping it first frees the C++ Runtime in order
    # (and keeps nanobind's leak report quiet).
    set_default_runtime(None)


def matmul(a, b, out=None, **kwargs):
    """Runtime.matmul on the default runtime (default_runtime())."""
    return default_runtime().matmul(a, b, out, **kwargs)
