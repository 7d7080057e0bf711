// Worker loop of the compile pool; exceptions from a compile become failed results here.
#include "src/nvrtc/compile_pool.hpp"

#include <exception>

namespace gemmtune {

CompilePool::CompilePool(Compiler const& compiler, unsigned threads) : compiler_(compiler) {
  if (threads == 0) threads = std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : workers_) t.join();
  for (Task& task : queue_) {
    CompileResult r;
    r.log = "compile pool shut down before '" + task.request.source_name + "' was compiled";
    task.promise.set_value(std::move(r));
  }
}

std::future<CompileResult> CompilePool::submit(CompileRequest request) {
  Task task{std::move(request), {}};
  std::future<CompileResult> future = task.promise.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      CompileResult r;
      r.log = "compile pool is shutting down";
      task.promise.set_value(std::move(r));
      return future;
    }
    queue_.push_back(std::move(task));
  }
  ready_.notify_one();
  return future;
}

void CompilePool::work() {
  while (true) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    CompileResult result;
    try {
      result = compiler_.compile(task.request);
    } catch (std::exception const& e) {
      result = CompileResult{};
      result.log = std::string("internal error while compiling '") + task.request.source_name +
                   "': " + e.what();
    } catch (...) {
      result = CompileResult{};
      result.log = "internal error while compiling '" + task.request.source_name + "'";
    }
    task.promise.set_value(std::move(result));
  }
}

}  // namespace gemmtune
