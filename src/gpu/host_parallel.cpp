// Thread fan-out for host checks. Threads are started per call: a call covers tens of MiB, so
// the ~tens of microseconds to start them is noise, and no pool outlives the work.
#include "src/gpu/host_parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace gemmtune {

int host_threads() {
  unsigned const n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void parallel_ranges(std::size_t count, int threads,
                     std::function<void(std::size_t, std::size_t)> const& fn,
                     std::size_t min_per_thread) {
  if (count == 0) return;
  std::size_t const by_size = std::max<std::size_t>(1, count / std::max<std::size_t>(1, min_per_thread));
  std::size_t const n = std::min(static_cast<std::size_t>(std::max(1, threads)), by_size);
  if (n == 1) {
    fn(0, count);
    return;
  }
  std::size_t const per = count / n, extra = count % n;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t t = 0, begin = 0; t < n; ++t) {
    std::size_t const end = begin + per + (t < extra ? 1 : 0);
    ranges.emplace_back(begin, end);
    begin = end;
  }
  std::vector<std::thread> workers;
  workers.reserve(n);
  std::vector<std::size_t> inline_ranges = {0};  // the calling thread takes the first itself
  for (std::size_t t = 1; t < n; ++t) {
    try {
      workers.emplace_back(fn, ranges[t].first, ranges[t].second);
    } catch (std::system_error const&) {
      inline_ranges.push_back(t);  // out of threads: still done, just not in parallel
    }
  }
  for (std::size_t t : inline_ranges) fn(ranges[t].first, ranges[t].second);
  for (std::thread& w : workers) w.join();
}

bool bytes_equal(std::span<std::byte const> a, std::span<std::byte const> b, int threads) {
  if (a.size() != b.size()) return false;
  std::atomic<bool> equal{true};
  parallel_ranges(a.size(), threads, [&](std::size_t begin, std::size_t end) {
    if (std::memcmp(a.data() + begin, b.data() + begin, end - begin) != 0) {
      equal.store(false, std::memory_order_relaxed);
    }
  }, std::size_t{1} << 20);
  return equal.load();
}

}  // namespace gemmtune
