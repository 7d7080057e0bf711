// Async-signal-safe interrupt flag for the parent process.
#include "tuner/worker/interrupt.hpp"

#include <csignal>
#include <cstring>

namespace gemmtune {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_interrupt(int sig) {
  if (g_signal != 0) {
    // The user asked twice: stop waiting for a clean shutdown. Only async-signal-safe calls.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART keeps unrelated blocking I/O (SQLite, stdio) from failing with EINTR; poll() is
  // never restarted, so the supervisor's waits still wake up at once.
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() { return g_signal != 0; }

int interrupt_signal() { return static_cast<int>(g_signal); }

void clear_interrupt() { g_signal = 0; }

}  // namespace gemmtune
