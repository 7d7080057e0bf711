"""gemmtune for Python: GEMMs with the kernels of a gemmtune tuning table, for torch tensors and
any CUDA array (DLPack, __cuda_array_interface__), on the caller's stream.

    import gemmtune
    rt = gemmtune.Runtime("table.json")
    c = rt.matmul(a, b)

`gemmtune.matmul` runs on the default runtime ($GEMMTUNE_TABLE); with torch, the custom op
`torch.ops.gemmtune.matmul` (gemmtune.torch_op) is what torch.compile and torch.export trace.
`gemmtune.cli` runs the command line's search, query and export."""
from __future__ import annotations

import sys

from ._errors import (ArgumentError, DeviceError, DtypeError, GemmError, GemmInfo,
                      NoDeviceError)
from ._runtime_api import (TABLE_ENV, Runtime, default_runtime, matmul,
                           set_default_runtime)
from . import cli

__version__ = "0.2.0"

__all__ = ["Runtime", "GemmInfo", "GemmError", "ArgumentError", "DtypeError", "DeviceError",
           "NoDeviceError", "matmul", "default_runtime", "set_default_runtime", "TABLE_ENV",
           "cli"]

# Importing torch costs a second or more, so the op is registered here only when the
# application has torch already; otherwise `import gemmtune.torch_op` registers it.
if "torch" in sys.modules:
    from . import torch_op  # noqa: F401
