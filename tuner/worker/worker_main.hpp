// Entry point of a worker process (`gemmtune __worker`): checks that it was started by a
// supervisor, ties its life to the parent's, and serves requests on fds 3 and 4.
#pragma once

#include "tuner/worker/worker_loop.hpp"

namespace gemmtune {

/// The whole of worker mode; its return value is the process exit code. Expects the request
/// pipe on fd 3 and the reply pipe on fd 4 (WorkerProcess::spawn arranges this); exits when
/// the parent goes away, even in the middle of a job that never ends, and at once (without
/// running destructors) after a reply with exit_after.
int worker_main(WorkerHandlers const& handlers);

}  // namespace gemmtune
