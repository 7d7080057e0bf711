// The worker's request loop, run on a thread against real pipes: dispatch, errors as replies,
// exit_after, EOF and broken frames.
#include "tuner/worker/worker_loop.hpp"

#include <future>
#include <stdexcept>

#include <gtest/gtest.h>
#include <unistd.h>

#include "tuner/worker/fake_handlers.hpp"
#include "tuner/worker/worker_protocol.hpp"

namespace gemmtune {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A loop on its own thread, with the parent's ends of both pipes.
class LoopHarness {
 public:
  explicit LoopHarness(WorkerHandlers handlers) : handlers_(std::move(handlers)) {
    EXPECT_EQ(::pipe(requests_), 0);
    EXPECT_EQ(::pipe(replies_), 0);
    result_ = std::async(std::launch::async,
                         [this] { return run_worker_loop(requests_[0], replies_[1], handlers_); });
  }
  ~LoopHarness() {
    close_requests();
    if (result_.valid()) result_.wait();
    for (int fd : {requests_[0], replies_[0], replies_[1]}) ::close(fd);
  }
  json receive() {
    json m;
    EXPECT_EQ(read_frame(replies_[0], m, Clock::now() + std::chrono::seconds(5)), FrameStatus::kOk);
    return m;
  }
  WorkerResponse call(std::uint64_t id, std::string const& type, json payload = json::object()) {
    EXPECT_EQ(write_frame(requests_[1], to_message(WorkerRequest{id, type, std::move(payload)})),
              FrameStatus::kOk);
    return parse_response(receive());
  }
  void send_raw(std::string const& bytes) {
    ASSERT_EQ(::write(requests_[1], bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }
  void close_requests() {
    if (requests_[1] >= 0) ::close(requests_[1]);
    requests_[1] = -1;
  }
  int exit_code() {
    EXPECT_EQ(result_.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    return result_.get();
  }

 private:
  WorkerHandlers handlers_;
  int requests_[2] = {-1, -1};
  int replies_[2] = {-1, -1};
  std::future<int> result_;
};

WorkerHandlers test_handlers() {
  WorkerHandlers h = fake_handlers();
  h["double"] = [](json const& p, bool&) { return json{{"v", 2 * p.at("v").get<int>()}}; };
  h["throws"] = [](json const&, bool&) -> json { throw std::runtime_error("handler broke"); };
  h["sticky"] = [](json const&, bool& exit_after) {
    exit_after = true;
    return json{{"disposition", "fault"}};
  };
  return h;
}

TEST(WorkerLoop, SaysHelloThenServesRequests) {
  LoopHarness loop(test_handlers());
  WorkerHello const hello = parse_hello(loop.receive());
  EXPECT_EQ(hello.protocol, kWorkerProtocolVersion);
  EXPECT_EQ(hello.pid, ::getpid());

  WorkerResponse r = loop.call(1, "double", json{{"v", 21}});
  EXPECT_EQ(r.id, 1u);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.payload, (json{{"v", 42}}));

  r = loop.call(2, "fake", json{{"action", "echo"}, {"x", "y"}});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.payload.at("x"), "y");

  r = loop.call(3, "ping");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.payload.at("pid"), ::getpid());

  loop.close_requests();
  EXPECT_EQ(loop.exit_code(), kWorkerExitOk);
}

TEST(WorkerLoop, UnknownTypeAndHandlerErrorsAreReplies) {
  LoopHarness loop(test_handlers());
  loop.receive();
  WorkerResponse r = loop.call(5, "no-such-type");
  EXPECT_EQ(r.id, 5u);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unknown request type 'no-such-type'"), std::string::npos) << r.error;

  r = loop.call(6, "throws");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "handler broke");

  r = loop.call(7, "fake", json{{"action", "teleport"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unknown fake action 'teleport'"), std::string::npos) << r.error;

  r = loop.call(8, "double", json{{"v", 1}});  // still serving
  EXPECT_TRUE(r.ok);
}

TEST(WorkerLoop, MalformedRequestGetsAnErrorReply) {
  LoopHarness loop(test_handlers());
  loop.receive();
  loop.send_raw(encode_frame(json{{"id", 9}, {"payload", json::object()}}));
  WorkerResponse r = parse_response(loop.receive());
  EXPECT_EQ(r.id, 9u);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("'type'"), std::string::npos) << r.error;
}

TEST(WorkerLoop, ExitAfterReplyEndsTheLoop) {
  LoopHarness loop(test_handlers());
  loop.receive();
  WorkerResponse r = loop.call(1, "sticky");
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.exit_after);
  EXPECT_EQ(loop.exit_code(), kWorkerExitAfterReply);
}

TEST(WorkerLoop, BrokenFrameEndsTheLoopWithAnError) {
  LoopHarness loop(test_handlers());
  loop.receive();
  loop.send_raw(std::string("\xff\xff\xff\x7f", 4));
  EXPECT_EQ(loop.exit_code(), kWorkerExitProtocolError);
}

TEST(WorkerLoop, MergeKeepsTheSecondOnConflict) {
  WorkerHandlers a{{"x", [](json const&, bool&) { return json(1); }},
                   {"y", [](json const&, bool&) { return json(2); }}};
  WorkerHandlers b{{"x", [](json const&, bool&) { return json(3); }}};
  WorkerHandlers m = merge_handlers(a, b);
  bool exit_after = false;
  EXPECT_EQ(m.at("x")(json::object(), exit_after), 3);
  EXPECT_EQ(m.at("y")(json::object(), exit_after), 2);
}

}  // namespace
}  // namespace gemmtune
