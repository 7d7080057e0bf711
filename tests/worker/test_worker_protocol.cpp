// Frame encoding, deadlines, EOF and size limits of the worker protocol, over real pipes.
#include "tuner/worker/worker_protocol.hpp"

#include <chrono>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace gemmtune {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { EXPECT_EQ(::pipe(fd), 0); }
  ~Pipe() {
    close_read();
    close_write();
  }
  int r() const { return fd[0]; }
  int w() const { return fd[1]; }
  void close_read() {
    if (fd[0] >= 0) ::close(fd[0]);
    fd[0] = -1;
  }
  void close_write() {
    if (fd[1] >= 0) ::close(fd[1]);
    fd[1] = -1;
  }
};

Deadline in_ms(int ms) { return Clock::now() + std::chrono::milliseconds(ms); }

TEST(WorkerProtocol, FrameIsLittleEndianLengthThenJson) {
  json const m{{"a", std::string(300, 'z')}};
  std::string const frame = encode_frame(m);
  std::string const body = m.dump();
  ASSERT_EQ(body.size(), 308u);  // 0x134
  ASSERT_EQ(frame.size(), 4 + body.size());
  EXPECT_EQ(static_cast<unsigned char>(frame[0]), 0x34);
  EXPECT_EQ(static_cast<unsigned char>(frame[1]), 0x01);
  EXPECT_EQ(frame[2], 0);
  EXPECT_EQ(frame[3], 0);
  EXPECT_EQ(frame.substr(4), body);
}

TEST(WorkerProtocol, RoundTripThroughPipe) {
  Pipe p;
  json const sent{{"id", 7}, {"type", "fake"}, {"payload", {{"text", "héllo"}, {"n", {1, 2, 3}}}}};
  ASSERT_EQ(write_frame(p.w(), sent), FrameStatus::kOk);
  ASSERT_EQ(write_frame(p.w(), json{{"second", true}}), FrameStatus::kOk);
  json got;
  ASSERT_EQ(read_frame(p.r(), got, in_ms(1000)), FrameStatus::kOk);
  EXPECT_EQ(got, sent);
  ASSERT_EQ(read_frame(p.r(), got), FrameStatus::kOk);
  EXPECT_EQ(got, (json{{"second", true}}));
}

TEST(WorkerProtocol, OversizedFrameHeaderIsRejected) {
  Pipe p;
  std::uint32_t const n = kMaxFrameBytes + 1;
  unsigned char const header[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                                   static_cast<unsigned char>(n >> 16),
                                   static_cast<unsigned char>(n >> 24)};
  ASSERT_EQ(::write(p.w(), header, 4), 4);
  json got;
  try {
    read_frame(p.r(), got, in_ms(1000));
    FAIL() << "an oversized frame was accepted";
  } catch (ProtocolError const& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the limit"), std::string::npos) << e.what();
  }
}

TEST(WorkerProtocol, OversizedMessageIsNotSent) {
  json const big{{"s", std::string(100, 'x')}};
  EXPECT_THROW(encode_frame(big, 50), ProtocolError);
  EXPECT_NO_THROW(encode_frame(big, 200));
}

TEST(WorkerProtocol, BadJsonAndNonObjectsAreRejected) {
  for (std::string body : {std::string("not json"), std::string("[1,2]")}) {
    Pipe p;
    std::string frame(4, '\0');
    frame[0] = static_cast<char>(body.size());
    frame += body;
    ASSERT_EQ(::write(p.w(), frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
    json got;
    EXPECT_THROW(read_frame(p.r(), got, in_ms(1000)), ProtocolError) << body;
  }
}

TEST(WorkerProtocol, ReadTimesOutOnSilence) {
  Pipe p;
  json got;
  auto const t0 = Clock::now();
  EXPECT_EQ(read_frame(p.r(), got, in_ms(100)), FrameStatus::kTimeout);
  double const waited = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_GE(waited, 0.095);
  EXPECT_LT(waited, 1.0);
}

TEST(WorkerProtocol, ReadTimesOutInTheMiddleOfAFrame) {
  Pipe p;
  std::string const frame = encode_frame(json{{"k", "v"}});
  ASSERT_EQ(::write(p.w(), frame.data(), 6), 6);
  json got;
  EXPECT_EQ(read_frame(p.r(), got, in_ms(100)), FrameStatus::kTimeout);
}

TEST(WorkerProtocol, EofBeforeAndInsideAFrame) {
  {
    Pipe p;
    p.close_write();
    json got;
    EXPECT_EQ(read_frame(p.r(), got, in_ms(1000)), FrameStatus::kEof);
  }
  {
    Pipe p;
    std::string const frame = encode_frame(json{{"k", "v"}});
    ASSERT_EQ(::write(p.w(), frame.data(), 2), 2);
    p.close_write();
    json got;
    EXPECT_EQ(read_frame(p.r(), got), FrameStatus::kEof);
  }
}

TEST(WorkerProtocol, CancelCheckAbandonsTheWait) {
  Pipe p;
  json got;
  int polls = 0;
  auto const t0 = Clock::now();
  auto cancel = [&] { return ++polls > 2; };
  EXPECT_EQ(read_frame(p.r(), got, std::nullopt, cancel), FrameStatus::kCancelled);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0);
}

TEST(WorkerProtocol, WriteToClosedPipeIsEof) {
  std::signal(SIGPIPE, SIG_IGN);
  Pipe p;
  p.close_read();
  EXPECT_EQ(write_frame(p.w(), json{{"x", 1}}, in_ms(1000)), FrameStatus::kEof);
}

TEST(WorkerProtocol, WriteIntoFullPipeTimesOut) {
  Pipe p;
  ::fcntl(p.w(), F_SETFL, ::fcntl(p.w(), F_GETFL) | O_NONBLOCK);
  std::string const filler(4096, 'f');
  while (::write(p.w(), filler.data(), filler.size()) > 0) {
  }
  auto const t0 = Clock::now();
  EXPECT_EQ(write_frame(p.w(), json{{"x", std::string(10000, 'x')}}, in_ms(100)),
            FrameStatus::kTimeout);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0);
}

TEST(WorkerProtocol, MessagesRoundTrip) {
  WorkerRequest const req{42, "eval", json{{"k", 1}}};
  WorkerRequest const req2 = parse_request(to_message(req));
  EXPECT_EQ(req2.id, 42u);
  EXPECT_EQ(req2.type, "eval");
  EXPECT_EQ(req2.payload, req.payload);

  WorkerResponse ok{3, true, json{{"v", 2}}, "", true};
  WorkerResponse ok2 = parse_response(to_message(ok));
  EXPECT_TRUE(ok2.ok);
  EXPECT_TRUE(ok2.exit_after);
  EXPECT_EQ(ok2.payload, ok.payload);

  WorkerResponse err{4, false, json::object(), "bad thing", false};
  json const m = to_message(err);
  EXPECT_FALSE(m.contains("exit_after"));
  WorkerResponse err2 = parse_response(m);
  EXPECT_FALSE(err2.ok);
  EXPECT_EQ(err2.error, "bad thing");

  WorkerHello const h = parse_hello(to_message(WorkerHello{kWorkerProtocolVersion, 99}));
  EXPECT_EQ(h.protocol, kWorkerProtocolVersion);
  EXPECT_EQ(h.pid, 99);
}

TEST(WorkerProtocol, MalformedMessagesNameTheField) {
  try {
    parse_request(json{{"id", 1}});
    FAIL();
  } catch (ProtocolError const& e) {
    EXPECT_NE(std::string(e.what()).find("'type'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_request(json{{"id", -1}, {"type", "x"}}), ProtocolError);
  EXPECT_THROW(parse_request(json{{"id", 1}, {"type", "x"}, {"payload", 3}}), ProtocolError);
  EXPECT_THROW(parse_response(json{{"id", 1}, {"ok", "yes"}}), ProtocolError);
  EXPECT_THROW(parse_response(json{{"id", 1}, {"ok", false}}), ProtocolError);
  EXPECT_THROW(parse_hello(json{{"hello", "someone-else"}, {"protocol", 1}}), ProtocolError);
}

}  // namespace
}  // namespace gemmtune
