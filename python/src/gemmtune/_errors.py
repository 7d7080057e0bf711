"""The exceptions of gemmtune's Python API: one base with the runtime's status and what it said."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class GemmInfo:
    """What one call did (the runtime's GemmInfo)."""

    status: str  #: "ok", "invalid_argument", "no_device", "cuda_error" or "cublas_error"
    path: str  #: "tuned", "cublas", "cublaslt" or "none"
    rule: str  #: the table rule that matched ("exact", "nearest", ...; "" before the lookup)
    kernel: str  #: the table's kernel id, even when the call fell back to cuBLAS
    align: int  #: alignment class of the pointers and leading dimensions, in bytes
    detail: str  #: one line: why this path, or why nothing ran


class GemmError(RuntimeError):
    """A GEMM that did not run. `status` is the runtime's status ("invalid_argument" for
    arguments refused before the call), `info` what the runtime reported, when it was called."""

    def __init__(self, message: str, status: str = "invalid_argument",
                 info: Optional[GemmInfo] = None):
        super().__init__(message)
        self.status = status
        self.info = info


class ArgumentError(GemmError, ValueError):
    """Arguments the GEMM cannot take: shapes, strides, devices, alpha/beta with no output."""


class DtypeError(ArgumentError, TypeError):
    """Element types without a precision (float64, integers), or operands that disagree."""


class DeviceError(ArgumentError):
    """An operand that is not on a CUDA device, or operands on different devices."""


class NoDeviceError(GemmError):
    """The runtime found no usable CUDA device or driver; nothing ran."""


def error_for(info: GemmInfo, what: str) -> GemmError:
    """The exception for a call the runtime did not queue, with its own words."""
    message = f"gemmtune: {what}: {info.status}: {info.detail}"
    if info.status == "invalid_argument":
        return ArgumentError(message, info.status, info)
    if info.status == "no_device":
        return NoDeviceError(message, info.status, info)
    return GemmError(message, info.status, info)
