// A worker binary for tests: serves the fake job type, or misbehaves at startup on request
// (--die-on-start, --bad-hello, --old-protocol, --no-hello) to exercise the crash-loop breaker.
#include <string>

#include <unistd.h>

#include "tuner/worker/fake_handlers.hpp"
#include "tuner/worker/worker_main.hpp"
#include "tuner/worker/worker_protocol.hpp"

int main(int argc, char** argv) {
  using namespace gemmtune;
  std::string const mode = argc > 1 ? argv[1] : "";
  if (mode == "--die-on-start") return 5;
  if (mode == "--bad-hello") {
    unsigned char const header[4] = {0xff, 0xff, 0xff, 0x7f};  // a 2 GiB frame
    if (::write(kWorkerReplyFd, header, sizeof header) != sizeof header) return 1;
    for (;;) ::pause();
  }
  if (mode == "--old-protocol") {
    write_frame(kWorkerReplyFd, to_message(WorkerHello{kWorkerProtocolVersion - 1, ::getpid()}));
    for (;;) ::pause();
  }
  if (mode == "--no-hello") {
    for (;;) ::pause();
  }
  return worker_main(fake_handlers());
}
