// The "fake" job type: a worker that sleeps, exits, crashes, spins or reports a sticky fault on
// request, so the supervisor's timeout, crash and respawn paths are tested without a GPU.
#pragma once

#include "tuner/worker/worker_loop.hpp"

namespace gemmtune {

/// Handlers for type "fake", payload {"action": ..., "ms": n, "code": n, "name": "VAR"}:
///   echo      reply with the payload
///   sleep     sleep `ms` milliseconds, then reply {"slept_ms": ms}
///   exit      _exit(`code`) without replying
///   segfault  die of SIGSEGV
///   abort     die of SIGABRT
///   spin      busy-loop for ever (a hung kernel)
///   fault     reply {"disposition":"fault"} with exit_after set (a sticky CUDA error)
///   env       reply {"value": getenv(`name`) or null}
///   fork      start a child in the worker's process group that sleeps for ever; reply {"pid": n}
///   print     write `text` to stdout (as a kernel's printf would); reply {}
///   fds       reply {"fds": [open descriptor numbers]}
/// An unknown action is an ok:false reply.
WorkerHandlers fake_handlers();

}  // namespace gemmtune
