// The worker side of the protocol: read requests, dispatch them by type to handlers, write
// replies. Handlers are plain functions of the payload, so fake jobs (CI) and GPU jobs share it.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace gemmtune {

/// Runs one request; returns the reply payload. Sets `exit_after` when the process must die
/// after replying (sticky CUDA fault). A thrown exception becomes an ok:false reply.
using WorkerHandler = std::function<nlohmann::json(nlohmann::json const& payload, bool& exit_after)>;
/// Handlers by request type ("eval", "baseline", "device", "fake", ...).
using WorkerHandlers = std::map<std::string, WorkerHandler>;

/// `a` with the handlers of `b` added; a type present in both keeps the one from `b`.
WorkerHandlers merge_handlers(WorkerHandlers a, WorkerHandlers const& b);

/// Exit codes of run_worker_loop.
inline constexpr int kWorkerExitOk = 0;             ///< EOF on requests
inline constexpr int kWorkerExitProtocolError = 2;  ///< a frame the worker could not read
inline constexpr int kWorkerExitAfterReply = 3;     ///< a handler set exit_after (sticky fault)

/// Sends the hello, then serves requests from `in_fd` until EOF, replying on `out_fd`. A request
/// of an unknown type gets an ok:false reply and the loop goes on. "ping" is answered with
/// {"pid":n} unless `handlers` has its own. Returns kWorkerExitAfterReply right after a
/// reply with exit_after set.
int run_worker_loop(int in_fd, int out_fd, WorkerHandlers const& handlers);

}  // namespace gemmtune
