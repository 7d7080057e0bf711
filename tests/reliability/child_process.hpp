// Starting a test program as a child process and ending it: the kill/resume and concurrency
// tests run searches in children so they can SIGKILL them mid-write.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/test_paths.hpp"

extern char** environ;

namespace gemmtune::reliability {

/// Starts `args` (args[0] is the program path); stdout and stderr are inherited.
#ifdef GEMMTUNE_SCRIPTED_SEARCH_REL
/// The scripted-search helper program of tests/reliability, beside the test in the build.
inline std::string scripted_search() {
  return gemmtune::test::build_path(GEMMTUNE_SCRIPTED_SEARCH_REL).string();
}
#endif

inline pid_t spawn_child(std::vector<std::string> const& args) {
  std::vector<char*> argv;
  for (auto const& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int const rc = ::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc != 0) throw std::runtime_error("posix_spawn " + args[0] + " failed: " + std::to_string(rc));
  return pid;
}

/// Waits for a child; returns its raw wait status.
inline int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  return status;
}

}  // namespace gemmtune::reliability
