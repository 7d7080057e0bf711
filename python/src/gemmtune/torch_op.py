"""The torch custom op gemmtune::matmul over the default runtime, with a fake implementation, so
`torch.compile(fullgraph=True)` and `torch.export` see it as one op with a known output, and a
backward made of the same op (the gradients of a GEMM are GEMMs). Imported by `import gemmtune`
when torch is already imported, else on `import gemmtune.torch_op`."""
from __future__ import annotations

import torch

from ._runtime_api import default_runtime


def _output_shape(a: torch.Tensor, b: torch.Tensor, trans_a: bool, trans_b: bool):
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"gemmtune::matmul takes 2-D matrices, not {a.dim()}-D and {b.dim()}-D")
    m, k = (a.shape[1], a.shape[0]) if trans_a else (a.shape[0], a.shape[1])
    kb, n = (b.shape[1], b.shape[0]) if trans_b else (b.shape[0], b.shape[1])
    torch._check(k == kb, lambda: f"gemmtune::matmul: op(a) is {m}x{k} and op(b) is {kb}x{n}")
    return m, n


@torch.library.custom_op("gemmtune::matmul", mutates_args=(), device_types="cuda")
def matmul(a: torch.Tensor, b: torch.Tensor, alpha: float = 1.0, trans_a: bool = False,
           trans_b: bool = False) -> torch.Tensor:
    """alpha·op(a)·op(b) through the default runtime's table, as a new tensor."""
    return default_runtime().matmul(a, b, alpha=alpha, trans_a=trans_a, trans_b=trans_b)


@matmul.register_fake
def _matmul_fake(a, b, alpha=1.0, trans_a=False, trans_b=False):
    if a.dtype != b.dtype:
        raise TypeError(f"gemmtune::matmul: a is {a.dtype} and b is {b.dtype}")
    m, n = _output_shape(a, b, trans_a, trans_b)
    return a.new_empty((m, n))


def _setup_context(ctx, inputs, output):
    a, b, alpha, trans_a, trans_b = inputs
    ctx.save_for_backward(a, b)
    ctx.alpha, ctx.trans_a, ctx.trans_b = alpha, trans_a, trans_b


def _backward(ctx, grad):
    # C = alpha·op(A)·op(B): d op(A) = alpha·dC·op(B)ᵀ and d op(B) = alpha·op(A)ᵀ·dC, each
    # written as one call of the op on the stored operands (a stored transpose gets the
    # transposed gradient).
    a, b = ctx.saved_tensors
    grad = grad.contiguous()  # a reduction's gradient may be an expanded view
    alpha, ta, tb = ctx.alpha, ctx.trans_a, ctx.trans_b
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = matmul(b, grad, alpha, tb, True) if ta else matmul(grad, b, alpha, False, not tb)
    if ctx.needs_input_grad[1]:
        grad_b = matmul(grad, a, alpha, True, ta) if tb else matmul(a, grad, alpha, not ta, False)
    return grad_a, grad_b, None, None, None


matmul.register_autograd(_backward, setup_context=_setup_context)
