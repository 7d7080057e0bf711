// The wire protocol between the search (parent) and a worker process: length-prefixed JSON
// frames over a pair of dedicated pipes, the hello, request and reply messages, and frame I/O
// with deadlines so the parent never blocks forever on a worker that hangs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"

namespace gemmtune {

/// Bumped whenever a message changes shape; the parent refuses a worker that says otherwise.
inline constexpr int kWorkerProtocolVersion = 2;
/// Largest frame either side accepts (payload bytes, without the 4-byte length).
inline constexpr std::uint32_t kMaxFrameBytes = 64u << 20;
/// Worker-side descriptors: requests arrive on fd 3, replies leave on fd 4. Not stdin/stdout,
/// because kernels, cuBLAS and drivers may print to stdout.
inline constexpr int kWorkerRequestFd = 3;
inline constexpr int kWorkerReplyFd = 4;

/// A broken frame or message: oversized, truncated header, bad JSON, missing field.
/// Deepest nesting a frame may have (messages need about 6); deeper is refused before a document
/// is built, so a hostile frame cannot exhaust the stack.
inline constexpr int kMaxFrameDepth = 32;

/// The message in a frame's body: a JSON object of at most kMaxFrameDepth levels and no
/// duplicate keys; ProtocolError otherwise. What read_frame() applies to every frame.
nlohmann::json parse_frame_body(std::string_view body);

class ProtocolError : public Error {
 public:
  explicit ProtocolError(std::string const& what) : Error("worker protocol: " + what) {}
};

/// When a frame operation gives up; nullopt waits for ever (the worker side).
using Deadline = std::optional<std::chrono::steady_clock::time_point>;
/// Polled while waiting; returning true abandons the wait (Ctrl-C in the parent).
using CancelCheck = std::function<bool()>;

enum class FrameStatus {
  kOk,         ///< a whole frame was read or written
  kEof,        ///< the other end is gone (EOF on read, EPIPE on write)
  kTimeout,    ///< the deadline passed first
  kCancelled,  ///< the cancel check said stop
};

std::string_view to_string(FrameStatus s);

/// Serialises `message` as one frame: 4-byte little-endian length, then UTF-8 JSON. Throws
/// ProtocolError when the JSON exceeds `max_bytes`.
std::string encode_frame(nlohmann::json const& message, std::uint32_t max_bytes = kMaxFrameBytes);

/// Writes one frame. With a deadline the fd should be O_NONBLOCK (WorkerProcess sets it).
/// Throws Error on an unexpected I/O error, ProtocolError on an oversized message.
FrameStatus write_frame(int fd, nlohmann::json const& message, Deadline deadline = std::nullopt,
                        CancelCheck const& cancel = {});

/// Reads one frame into `out`. EOF, even in the middle of a frame, gives kEof. Throws
/// ProtocolError for a length above `max_bytes`, bad JSON, JSON nested deeper than
/// kMaxFrameDepth, or JSON that is not an object.
FrameStatus read_frame(int fd, nlohmann::json& out, Deadline deadline = std::nullopt,
                       CancelCheck const& cancel = {}, std::uint32_t max_bytes = kMaxFrameBytes);

/// {"id":n,"type":"eval"|"baseline"|"retime"|"device"|"fake"|"ping"|...,"payload":{...}}
struct WorkerRequest {
  std::uint64_t id = 0;
  std::string type;
  nlohmann::json payload = nlohmann::json::object();
};

/// {"id":n,"ok":true,"payload":{...}} or {"id":n,"ok":false,"error":"..."}, plus
/// "exit_after":true when the worker dies right after replying (sticky CUDA fault).
struct WorkerResponse {
  std::uint64_t id = 0;
  bool ok = false;
  nlohmann::json payload = nlohmann::json::object();
  std::string error;
  bool exit_after = false;
};

/// First frame a worker sends: {"hello":"gemmtune-worker","protocol":1,"pid":n}.
struct WorkerHello {
  int protocol = 0;
  long pid = 0;
};

nlohmann::json to_message(WorkerRequest const& r);
nlohmann::json to_message(WorkerResponse const& r);
nlohmann::json to_message(WorkerHello const& h);
/// Each throws ProtocolError naming the field that is missing or of the wrong type.
WorkerRequest parse_request(nlohmann::json const& message);
WorkerResponse parse_response(nlohmann::json const& message);
WorkerHello parse_hello(nlohmann::json const& message);

}  // namespace gemmtune
