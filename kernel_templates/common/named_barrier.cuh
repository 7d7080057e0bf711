// Named barriers: bar.sync / bar.arrive on the block's hardware barriers 1..15 (0 is the one
// __syncthreads uses) with a thread count, so a subset of the block's warps (one warpgroup, or
// two handing a turn to each other) meets without stopping the others. Which ids a kernel uses
// for what is the kernel's to say.
#pragma once

namespace gemmtune {
namespace named_barrier {

/// Barrier id0 + w (w = 0 or 1): waits for `count` threads (this warp's included). The ids are
/// immediates so the kernel reserves only the barriers it names.
template <int id0, int count>
__device__ __forceinline__ void sync(int w) {
  if (w == 0) {
    asm volatile("bar.sync %0, %1;" ::"n"(id0), "n"(count) : "memory");
  } else {
    asm volatile("bar.sync %0, %1;" ::"n"(id0 + 1), "n"(count) : "memory");
  }
}
/// Barrier id0 + w (w = 0 or 1): arrives as one of its `count` threads without waiting.
template <int id0, int count>
__device__ __forceinline__ void arrive(int w) {
  if (w == 0) {
    asm volatile("bar.arrive %0, %1;" ::"n"(id0), "n"(count) : "memory");
  } else {
    asm volatile("bar.arrive %0, %1;" ::"n"(id0 + 1), "n"(count) : "memory");
  }
}

}  // namespace named_barrier
}  // namespace gemmtune
