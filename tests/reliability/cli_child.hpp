// Runs the gemmtune binary as tests/cli's runner does, plus what the bad-input suite needs to
// simulate a hostile environment: a file-size limit (a full disk) and dropping root to an
// unprivileged user (so a read-only file is read-only even when the suite runs as root).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/test_paths.hpp"

namespace gemmtune::reliability {

struct ChildOptions {
  std::string db;                 ///< GEMMTUNE_DB, when not empty
  long long max_file_bytes = -1;  ///< RLIMIT_FSIZE (with SIGXFSZ ignored), when ≥ 0
  bool unprivileged = false;      ///< run as uid/gid 65534 when started as root
};

struct ChildRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// The binary an unprivileged child can execute. The build tree may sit in a directory only its
/// owner can enter (e.g. a clone under `mktemp -d`, mode 0700), so for a root-run suite the binary
/// is copied once into a world-readable temporary directory, removed when the tests end.
inline std::string const& unprivileged_binary() {
  struct Copy {
    std::string dir, path;
    Copy() {
      if (::geteuid() != 0) {
        path = gemmtune::test::gemmtune_binary();
        return;
      }
      char tmpl[] = "/tmp/gemmtune-bin-XXXXXX";
      if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
      dir = tmpl;
      namespace fs = std::filesystem;
      fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
      path = dir + "/gemmtune";
      fs::copy_file(gemmtune::test::gemmtune_binary(), path);
      fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
    }
    ~Copy() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  };
  static Copy const copy;
  return copy.path;
}

inline ChildRun run_gemmtune(std::vector<std::string> const& args, ChildOptions const& o = {}) {
  std::string bin = o.unprivileged ? unprivileged_binary() : gemmtune::test::gemmtune_binary();
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  pid_t const pid = ::fork();
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (!o.db.empty()) ::setenv("GEMMTUNE_DB", o.db.c_str(), 1);
    if (o.max_file_bytes >= 0) {
      ::signal(SIGXFSZ, SIG_IGN);  // writes past the limit fail with EFBIG instead
      rlimit lim{static_cast<rlim_t>(o.max_file_bytes), static_cast<rlim_t>(o.max_file_bytes)};
      if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(126);
    }
    if (o.unprivileged && ::geteuid() == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(126);
    }
    std::vector<char*> argv;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ChildRun run;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t const n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? run.out : run.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

}  // namespace gemmtune::reliability
