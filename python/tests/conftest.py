"""Shared fixtures of the Python package's tests: the repository's files, whether this machine
has a GPU (asked of the driver directly, so the answer never depends on the code under test),
and CUDA arrays that are only descriptions (for the paths that must stop before the GPU)."""
import ctypes
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def _has_gpu() -> bool:
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 \
        and count.value > 0


HAS_GPU = _has_gpu()
needs_no_gpu = pytest.mark.skipif(HAS_GPU, reason="checks the no-device path; this machine "
                                  "has a GPU, and the fake pointers must not reach it")


class CudaArrayDescription:
    """An object that says it is a CUDA array (`__cuda_array_interface__` v3) without memory
    behind it: enough for every check before the runtime, and for the no-device path."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x7f0000000000, stream=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (ptr, False), "strides": strides,
                                         "version": 3, "stream": stream}


@pytest.fixture
def fake():
    return CudaArrayDescription


@pytest.fixture
def table_path():
    return REPO / "tests" / "data" / "report" / "h200-fp16-core.table.json"


@pytest.fixture
def gemmtune_bin():
    path = os.environ.get("GEMMTUNE_BIN") or str(REPO / "build" / "cli" / "gemmtune")
    if not os.access(path, os.X_OK):
        pytest.skip("no gemmtune binary (set GEMMTUNE_BIN or build it into build/)")
    return path
