// Fake jobs for testing the worker supervisor with real processes but no GPU.
#include "tuner/worker/fake_handlers.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <sys/prctl.h>
#include <unistd.h>

#include "src/core/error.hpp"
#include "tuner/worker/worker_protocol.hpp"

namespace gemmtune {

using nlohmann::json;

namespace {

// A deliberate crash should not leave a core file behind or spend seconds writing one.
[[noreturn]] void die_of(int sig) {
  ::prctl(PR_SET_DUMPABLE, 0);
  std::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  std::raise(sig);
  std::_Exit(128 + sig);  // only if the signal somehow did not end the process
}

std::int64_t int_field(json const& payload, char const* name, std::int64_t fallback) {
  auto it = payload.find(name);
  if (it == payload.end()) return fallback;
  if (!it->is_number_integer())
    throw Error(std::string("fake job field '") + name + "' must be an integer, got " + it->dump());
  return it->get<std::int64_t>();
}

json run_fake(json const& payload, bool& exit_after) {
  auto it = payload.find("action");
  if (it == payload.end() || !it->is_string())
    throw Error("fake job needs a string field 'action'");
  std::string const action = it->get<std::string>();
  if (action == "echo") return payload;
  if (action == "sleep") {
    std::int64_t const ms = int_field(payload, "ms", 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return json{{"slept_ms", ms}};
  }
  if (action == "exit") ::_exit(static_cast<int>(int_field(payload, "code", 0)));
  if (action == "segfault") die_of(SIGSEGV);
  if (action == "abort") die_of(SIGABRT);
  if (action == "spin") {
    // volatile keeps the compiler from treating the side-effect-free loop as removable.
    volatile bool forever = true;
    while (forever) {
    }
    return json::object();
  }
  if (action == "fault") {
    exit_after = true;
    return json{{"disposition", "fault"}};
  }
  if (action == "env") {
    auto name = payload.find("name");
    if (name == payload.end() || !name->is_string())
      throw Error("fake job 'env' needs a string field 'name'");
    char const* value = std::getenv(name->get<std::string>().c_str());
    return json{{"value", value ? json(value) : json(nullptr)}};
  }
  if (action == "fork") {
    pid_t child = ::fork();  // the fake worker has no CUDA context, so fork is safe here
    if (child < 0) throw Error("fake job 'fork': fork failed");
    if (child == 0) {
      // Without the pipes, so the parent still sees EOF when the worker itself dies.
      ::close(kWorkerRequestFd);
      ::close(kWorkerReplyFd);
      for (;;) ::pause();
    }
    return json{{"pid", static_cast<long>(child)}};
  }
  if (action == "print") {
    std::string const text = payload.value("text", std::string());
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return json::object();
  }
  if (action == "fds") {
    json fds = json::array();
    std::error_code ec;
    for (auto const& entry : std::filesystem::directory_iterator("/proc/self/fd", ec))
      fds.push_back(std::stoi(entry.path().filename().string()));
    if (ec) throw Error("fake job 'fds': cannot list /proc/self/fd: " + ec.message());
    return json{{"fds", fds}};
  }
  throw Error("unknown fake action '" + action +
              "' (expected echo, sleep, exit, segfault, abort, spin, fault, env, fork, print or "
              "fds)");
}

}  // namespace

WorkerHandlers fake_handlers() { return WorkerHandlers{{"fake", run_fake}}; }

}  // namespace gemmtune
