// Frame I/O and message (de)serialisation for the worker protocol.
#include "tuner/worker/worker_protocol.hpp"

#include <cerrno>
#include <climits>
#include <cstring>

#include <poll.h>
#include <unistd.h>

#include "src/core/json_structure.hpp"

namespace gemmtune {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// A cancel check is polled at least this often while waiting.
constexpr int kCancelSliceMs = 50;

enum class WaitStatus { kReady, kTimeout, kCancelled };

// Waits until `fd` is ready for `events` (hang-up and error count as ready: the following read or
// write then reports them), the deadline passes, or the cancel check fires.
WaitStatus wait_fd(int fd, short events, Deadline const& deadline, CancelCheck const& cancel) {
  for (;;) {
    if (cancel && cancel()) return WaitStatus::kCancelled;
    int timeout_ms = -1;
    if (deadline) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return WaitStatus::kTimeout;
      timeout_ms = left > INT_MAX ? INT_MAX : static_cast<int>(left);
    }
    if (cancel && (timeout_ms < 0 || timeout_ms > kCancelSliceMs)) timeout_ms = kCancelSliceMs;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, timeout_ms);
    if (n > 0) return WaitStatus::kReady;
    if (n < 0 && errno != EINTR)
      throw Error(std::string("poll on worker pipe failed: ") + std::strerror(errno));
    // n == 0 or EINTR: loop to re-check the deadline and the cancel flag.
  }
}

FrameStatus from_wait(WaitStatus w) {
  return w == WaitStatus::kTimeout ? FrameStatus::kTimeout : FrameStatus::kCancelled;
}

FrameStatus read_exact(int fd, char* buf, std::size_t n, Deadline const& deadline,
                       CancelCheck const& cancel) {
  bool const waits = deadline.has_value() || static_cast<bool>(cancel);
  std::size_t got = 0;
  while (got < n) {
    if (waits) {
      WaitStatus w = wait_fd(fd, POLLIN, deadline, cancel);
      if (w != WaitStatus::kReady) return from_wait(w);
    }
    ssize_t r = ::read(fd, buf + got, n - got);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (r == 0) {
      return FrameStatus::kEof;
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      throw Error(std::string("read from worker pipe failed: ") + std::strerror(errno));
    }
  }
  return FrameStatus::kOk;
}

FrameStatus write_all(int fd, char const* buf, std::size_t n, Deadline const& deadline,
                      CancelCheck const& cancel) {
  bool const waits = deadline.has_value() || static_cast<bool>(cancel);
  std::size_t done = 0;
  while (done < n) {
    std::size_t chunk = n - done;
    if (waits) {
      WaitStatus w = wait_fd(fd, POLLOUT, deadline, cancel);
      if (w != WaitStatus::kReady) return from_wait(w);
      // POLLOUT on a pipe promises room for PIPE_BUF bytes, so even a blocking fd cannot stall
      // past the deadline on a write this small.
      if (chunk > PIPE_BUF) chunk = PIPE_BUF;
    }
    ssize_t r = ::write(fd, buf + done, chunk);
    if (r >= 0) {
      done += static_cast<std::size_t>(r);
    } else if (errno == EPIPE) {
      return FrameStatus::kEof;
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      throw Error(std::string("write to worker pipe failed: ") + std::strerror(errno));
    }
  }
  return FrameStatus::kOk;
}

std::string size_text(std::uint64_t bytes) {
  return std::to_string(bytes) + " bytes";
}

json const& field(json const& m, char const* what, char const* name) {
  auto it = m.find(name);
  if (it == m.end()) throw ProtocolError(std::string(what) + " has no field '" + name + "'");
  return *it;
}

std::uint64_t id_field(json const& m, char const* what) {
  json const& v = field(m, what, "id");
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    throw ProtocolError(std::string(what) + " field 'id' must be a non-negative integer, got " +
                        v.dump());
  return v.get<std::uint64_t>();
}

}  // namespace

std::string_view to_string(FrameStatus s) {
  switch (s) {
    case FrameStatus::kOk: return "ok";
    case FrameStatus::kEof: return "eof";
    case FrameStatus::kTimeout: return "timeout";
    case FrameStatus::kCancelled: return "cancelled";
  }
  return "?";
}

std::string encode_frame(json const& message, std::uint32_t max_bytes) {
  // Error messages from drivers may hold bytes that are not UTF-8; replace them rather than fail.
  std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  if (body.size() > max_bytes)
    throw ProtocolError("message of " + size_text(body.size()) + " exceeds the frame limit of " +
                        size_text(max_bytes));
  auto const n = static_cast<std::uint32_t>(body.size());
  std::string frame(4, '\0');
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((n >> (8 * i)) & 0xffu);
  frame += body;
  return frame;
}

FrameStatus write_frame(int fd, json const& message, Deadline deadline, CancelCheck const& cancel) {
  std::string const frame = encode_frame(message);
  return write_all(fd, frame.data(), frame.size(), deadline, cancel);
}

FrameStatus read_frame(int fd, json& out, Deadline deadline, CancelCheck const& cancel,
                       std::uint32_t max_bytes) {
  unsigned char header[4];
  FrameStatus s = read_exact(fd, reinterpret_cast<char*>(header), 4, deadline, cancel);
  if (s != FrameStatus::kOk) return s;
  std::uint32_t const n = std::uint32_t(header[0]) | std::uint32_t(header[1]) << 8 |
                          std::uint32_t(header[2]) << 16 | std::uint32_t(header[3]) << 24;
  if (n > max_bytes)
    throw ProtocolError("frame of " + size_text(n) + " exceeds the limit of " +
                        size_text(max_bytes));
  std::string body(n, '\0');
  s = read_exact(fd, body.data(), n, deadline, cancel);
  if (s != FrameStatus::kOk) return s;
  out = parse_frame_body(body);
  return FrameStatus::kOk;
}

json parse_frame_body(std::string_view body) {
  try {
    check_json_structure(body, kMaxFrameDepth, "frame");
  } catch (ProtocolError const&) {
    throw;
  } catch (Error const& e) {
    throw ProtocolError(e.what());
  }
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    throw ProtocolError("frame of " + size_text(static_cast<std::uint32_t>(body.size())) +
                        " is not valid JSON");
  }
  if (!parsed.is_object()) throw ProtocolError("frame is JSON but not an object");
  return parsed;
}

json to_message(WorkerRequest const& r) {
  // `{}` passed as a json argument is null, not an empty object; send what the caller meant.
  return json{{"id", r.id}, {"type", r.type},
              {"payload", r.payload.is_null() ? json::object() : r.payload}};
}

json to_message(WorkerResponse const& r) {
  json m{{"id", r.id}, {"ok", r.ok}};
  if (r.ok)
    m["payload"] = r.payload;
  else
    m["error"] = r.error;
  if (r.exit_after) m["exit_after"] = true;
  return m;
}

json to_message(WorkerHello const& h) {
  return json{{"hello", "gemmtune-worker"}, {"protocol", h.protocol}, {"pid", h.pid}};
}

WorkerRequest parse_request(json const& m) {
  WorkerRequest r;
  r.id = id_field(m, "request");
  json const& type = field(m, "request", "type");
  if (!type.is_string()) throw ProtocolError("request field 'type' must be a string");
  r.type = type.get<std::string>();
  if (auto it = m.find("payload"); it != m.end()) {
    if (!it->is_object()) throw ProtocolError("request field 'payload' must be an object");
    r.payload = *it;
  }
  return r;
}

WorkerResponse parse_response(json const& m) {
  WorkerResponse r;
  r.id = id_field(m, "reply");
  json const& ok = field(m, "reply", "ok");
  if (!ok.is_boolean()) throw ProtocolError("reply field 'ok' must be true or false");
  r.ok = ok.get<bool>();
  if (r.ok) {
    if (auto it = m.find("payload"); it != m.end()) r.payload = *it;
  } else {
    json const& e = field(m, "reply", "error");
    if (!e.is_string()) throw ProtocolError("reply field 'error' must be a string");
    r.error = e.get<std::string>();
  }
  if (auto it = m.find("exit_after"); it != m.end()) {
    if (!it->is_boolean()) throw ProtocolError("reply field 'exit_after' must be true or false");
    r.exit_after = it->get<bool>();
  }
  return r;
}

WorkerHello parse_hello(json const& m) {
  json const& tag = field(m, "hello", "hello");
  if (tag != "gemmtune-worker")
    throw ProtocolError("first frame is not a gemmtune worker hello: " + m.dump().substr(0, 200));
  json const& p = field(m, "hello", "protocol");
  if (!p.is_number_integer()) throw ProtocolError("hello field 'protocol' must be an integer");
  WorkerHello h;
  h.protocol = p.get<int>();
  if (auto it = m.find("pid"); it != m.end() && it->is_number_integer()) h.pid = it->get<long>();
  return h;
}

}  // namespace gemmtune
