// The Tensor Memory Accelerator (sm_90+): 2-D tiled copies between global memory, described by
// a tensor map (TmaDescriptor, built on the host), and shared memory. Loads complete on an
// mbarrier (common/mbarrier.cuh) and may be multicast to the blocks of a cluster; stores are
// tracked per thread in bulk groups, so a warpgroup can go on computing while its stores drain
// and wait only when it needs their shared memory again.
#pragma once

#include "common/gemm_args.cuh"

namespace gemmtune {
namespace tma {

/// Whether this lane is the one elect.sync picks among the warp's lanes (every lane of the warp
/// calls it, converged). Copies issued under it are known to come from one thread, so the
/// compiler issues each once from uniform registers; under a lane test (threadIdx.x == 0) it
/// could not tell, and wrapped every copy in a loop over the distinct operands of the warp.
__device__ __forceinline__ bool elect_one() {
  unsigned elected = 0;
  asm volatile("{ .reg .pred p; elect.sync _|p, 0xffffffff; selp.u32 %0, 1, 0, p; }"
               : "=r"(elected));
  return elected != 0;
}
/// 2-D tiled copy of the box at (c0 = column, c1 = row) of the tensor map to the shared address
/// `dst`; completes `bytes` of transactions on `bar` (always the whole box: out-of-bounds
/// elements are written as zeros and counted).
__device__ __forceinline__ void load(unsigned dst, TmaDescriptor const* map, unsigned bar, int c0,
                                     int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
/// The same copy written to the same offset of every block in `mask` of the cluster; each
/// destination's barrier at `bar`'s offset receives the complete_tx of the bytes it got.
__device__ __forceinline__ void load_multicast(unsigned dst, TmaDescriptor const* map, unsigned bar,
                                               int c0, int c1, unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
/// 2-D tiled store of a shared-memory box to the tensor map at (c0 = column, c1 = row); parts
/// of the box outside the matrix are not written. Joins the thread's current bulk group.
__device__ __forceinline__ void store(TmaDescriptor const* map, unsigned src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}
/// Closes the thread's current bulk group (the stores issued since the previous commit).
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/// Returns once at most N of the thread's bulk groups have not finished reading shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
/// Returns once every bulk group of the thread has completed (its writes are done).
__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
/// Makes this thread's generic-proxy writes to shared memory visible to later TMA reads.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
/// Brings the tensor map into the cache ahead of the first copy that reads it.
__device__ __forceinline__ void prefetch(TmaDescriptor const* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<unsigned long long>(map))
               : "memory");
}

}  // namespace tma
}  // namespace gemmtune
