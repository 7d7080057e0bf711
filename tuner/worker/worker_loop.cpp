// Request dispatch loop run inside a worker process.
#include "tuner/worker/worker_loop.hpp"

#include <cstdio>
#include <exception>

#include <unistd.h>

#include "tuner/worker/worker_protocol.hpp"

namespace gemmtune {

using nlohmann::json;

WorkerHandlers merge_handlers(WorkerHandlers a, WorkerHandlers const& b) {
  for (auto const& [type, handler] : b) a[type] = handler;
  return a;
}

namespace {

WorkerResponse dispatch(WorkerRequest const& request, WorkerHandlers const& handlers) {
  WorkerResponse reply;
  reply.id = request.id;
  auto it = handlers.find(request.type);
  if (it == handlers.end()) {
    if (request.type == "ping") {
      reply.ok = true;
      reply.payload = json{{"pid", static_cast<long>(::getpid())}};
      return reply;
    }
    std::string known;
    for (auto const& [type, _] : handlers) known += (known.empty() ? "" : ", ") + type;
    reply.error = "unknown request type '" + request.type + "' (this worker serves: " +
                  (known.empty() ? "ping" : known + ", ping") + ")";
    return reply;
  }
  try {
    bool exit_after = false;
    reply.payload = it->second(request.payload, exit_after);
    reply.ok = true;
    reply.exit_after = exit_after;
  } catch (std::exception const& e) {
    reply.ok = false;
    reply.error = e.what();
  } catch (...) {
    reply.ok = false;
    reply.error = "handler for '" + request.type + "' threw a non-standard exception";
  }
  return reply;
}

}  // namespace

int run_worker_loop(int in_fd, int out_fd, WorkerHandlers const& handlers) {
  try {
    WorkerHello hello{kWorkerProtocolVersion, static_cast<long>(::getpid())};
    if (write_frame(out_fd, to_message(hello)) != FrameStatus::kOk) return kWorkerExitOk;
    for (;;) {
      json message;
      if (read_frame(in_fd, message) != FrameStatus::kOk) return kWorkerExitOk;
      WorkerResponse reply;
      try {
        reply = dispatch(parse_request(message), handlers);
      } catch (ProtocolError const& e) {
        // The frame was whole, so the stream is still in step: answer and carry on.
        reply.ok = false;
        reply.error = e.what();
        if (auto id = message.find("id"); id != message.end() && id->is_number_unsigned())
          reply.id = id->get<std::uint64_t>();
      }
      FrameStatus sent;
      try {
        sent = write_frame(out_fd, to_message(reply));
      } catch (ProtocolError const& e) {
        // The payload was too large to send; say so instead of leaving the parent waiting.
        WorkerResponse too_big{reply.id, false, json::object(), e.what(), reply.exit_after};
        sent = write_frame(out_fd, to_message(too_big));
      }
      if (reply.exit_after) return kWorkerExitAfterReply;
      if (sent != FrameStatus::kOk) return kWorkerExitOk;
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "gemmtune worker %ld: %s\n", static_cast<long>(::getpid()), e.what());
    return kWorkerExitProtocolError;
  }
}

}  // namespace gemmtune
