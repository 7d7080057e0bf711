// Splitting host-side checks of large buffers (comparisons, conversions, memcmp) over the
// machine's cores in contiguous ranges, so one candidate's verification is not bound to one core.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

namespace gemmtune {

/// Below this many items per thread a range is not worth a thread of its own.
inline constexpr std::size_t kMinItemsPerThread = std::size_t{1} << 16;

/// std::thread::hardware_concurrency(), at least 1.
int host_threads();

/// Calls `fn(begin, end)` on contiguous, disjoint ranges covering [0, count), in parallel on up
/// to `threads` threads (fewer when the ranges would hold under `min_per_thread` items each).
/// Returns when every call has returned; `fn` must not throw.
void parallel_ranges(std::size_t count, int threads,
                     std::function<void(std::size_t, std::size_t)> const& fn,
                     std::size_t min_per_thread = kMinItemsPerThread);

/// memcmp(a, b) == 0 over equal-sized spans, compared in parallel ranges.
bool bytes_equal(std::span<std::byte const> a, std::span<std::byte const> b, int threads);

}  // namespace gemmtune
