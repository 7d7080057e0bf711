// The GPU job types a real worker serves ("device", "eval", "baseline", "retime", "copy"),
// backed by one lazily created GpuSession, and the full handler set of `gemmtune __worker`.
#pragma once

#include "tuner/worker/worker_loop.hpp"

namespace gemmtune {

/// "device":   payload {} or {"require_present": true} → DeviceReport JSON. Works without a
///             GPU (present = false) unless require_present is set, which makes a missing
///             device an ok:false reply (use it as the supervisor's canary).
/// "eval":     EvalJob JSON → EvalResult JSON; exit_after is set when the disposition is kFault,
///             because the CUDA context is then unusable.
/// "baseline": BaselineJob JSON → BaselineResult JSON; exit_after when the session is poisoned.
/// "retime":   RetimeJob JSON → RetimeResult JSON; likewise.
/// "copy":     CopyJob JSON → CopyResult JSON (the device's copy bandwidth); likewise.
/// The GpuSession (context, cuBLAS handles, buffers) is created on the first eval or baseline.
WorkerHandlers gpu_handlers();

/// What `gemmtune __worker` serves: gpu_handlers() alone. The fake jobs of the supervisor's tests
/// are linked into test binaries only (gemmtune_worker_fakes).
WorkerHandlers worker_handlers();

}  // namespace gemmtune
