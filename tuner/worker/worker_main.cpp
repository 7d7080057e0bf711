// Worker-mode entry: fd checks, parent-death watch, then the request loop.
#include "tuner/worker/worker_main.hpp"

#include <cstdio>
#include <cstdlib>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "tuner/worker/worker_protocol.hpp"

namespace gemmtune {

namespace {

// The parent holds the only write end of the request pipe, so a hang-up there means the parent
// is gone (killed, crashed, or done). A job that never returns — a spinning kernel — would
// otherwise keep this process and its GPU context alive with nobody to kill it.
void watch_parent(int request_fd) {
  std::thread([request_fd] {
    for (;;) {
      pollfd p{request_fd, 0, 0};  // no events asked: poll still reports POLLHUP and POLLERR
      int n = ::poll(&p, 1, -1);
      if (n > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) ::_exit(kWorkerExitOk);
    }
  }).detach();
}

}  // namespace

int worker_main(WorkerHandlers const& handlers) {
  for (int fd : {kWorkerRequestFd, kWorkerReplyFd}) {
    if (::fcntl(fd, F_GETFD) < 0) {
      std::fprintf(stderr,
                   "worker mode expects its request and reply pipes on fds %d and %d; it is "
                   "started by the search, not by hand\n",
                   kWorkerRequestFd, kWorkerReplyFd);
      return kWorkerExitProtocolError;
    }
    // Nothing this process starts should hold the pipes open behind the parent's back.
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  watch_parent(kWorkerRequestFd);
  int const code = run_worker_loop(kWorkerRequestFd, kWorkerReplyFd, handlers);
  // After a sticky fault, skip destructors: tearing down a poisoned CUDA context (cuBLAS
  // handles, buffers) only produces more errors or stalls; process exit frees it all.
  if (code == kWorkerExitAfterReply) std::_Exit(code);
  return code;
}

}  // namespace gemmtune
