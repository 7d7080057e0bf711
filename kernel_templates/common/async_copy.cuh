// Global → shared copies through cp.async (sm_80+), with the zero-fill form for ragged edges.
// Below sm_80, and when the templates are compiled as host C++ for the CPU emulation, the same
// calls are plain synchronous copies and the group waits do nothing, so one code path serves all.
#pragma once

namespace gemmtune {
namespace async {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GEMMTUNE_HAS_CP_ASYNC 1
#else
#define GEMMTUNE_HAS_CP_ASYNC 0
#endif

/// Copies `valid` (0 or 1) floats from src to dst and zero-fills the rest of the 4 bytes. When
/// `valid` is 0 src is not read (pass any mapped address).
__device__ __forceinline__ void copy4(float* dst, const float* src, int valid) {
#if GEMMTUNE_HAS_CP_ASYNC
  unsigned const s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src),
               "r"(valid * 4));
#else
  *dst = valid ? *src : 0.0f;
#endif
}

/// Copies the first `valid` (0..4) floats of a 16-byte aligned src to a 16-byte aligned dst
/// and zero-fills the rest; only `valid` floats of src are read.
__device__ __forceinline__ void copy16(float* dst, const float* src, int valid) {
#if GEMMTUNE_HAS_CP_ASYNC
  unsigned const s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
               "r"(valid * 4));
#else
  for (int t = 0; t < 4; ++t) dst[t] = t < valid ? src[t] : 0.0f;
#endif
}

/// Closes the group of copies issued since the previous commit.
__device__ __forceinline__ void commit() {
#if GEMMTUNE_HAS_CP_ASYNC
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most PENDING committed groups are still in flight (this thread's copies only;
/// a barrier must follow before other threads read them).
template <int PENDING>
__device__ __forceinline__ void wait() {
#if GEMMTUNE_HAS_CP_ASYNC
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}

/// Waits until every copy this thread issued has landed (grouped or not).
__device__ __forceinline__ void wait_all() {
#if GEMMTUNE_HAS_CP_ASYNC
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace async
}  // namespace gemmtune
