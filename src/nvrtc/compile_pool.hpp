// CompilePool: a fixed set of threads that run Compiler::compile for queued requests, so
// compilation overlaps GPU timing. Every submitted request gets a result, even when the
// compiler throws or the pool shuts down first.
#pragma once

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "src/nvrtc/compiler.hpp"

namespace gemmtune {

/// Thread pool over one Compiler (which must outlive the pool).
class CompilePool {
 public:
  /// `threads` = 0 uses std::thread::hardware_concurrency() (at least 1).
  explicit CompilePool(Compiler const& compiler, unsigned threads = 0);
  /// Stops taking work, lets running compiles finish, joins; requests still queued resolve to
  /// a failed result saying the pool shut down.
  ~CompilePool();
  CompilePool(CompilePool const&) = delete;
  CompilePool& operator=(CompilePool const&) = delete;

  /// Queues a request; the future never holds an exception (failures are results).
  std::future<CompileResult> submit(CompileRequest request);

  /// Number of worker threads.
  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

 private:
  struct Task {
    CompileRequest request;
    std::promise<CompileResult> promise;
  };

  void work();

  Compiler const& compiler_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gemmtune
