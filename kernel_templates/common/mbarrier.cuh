// mbarriers (sm_90+): the shared-memory barriers by which a producer and its consumers hand the
// stages of a ring to each other, counting thread arrivals and, for TMA loads, the bytes that
// have landed; within a block or across the blocks of a cluster. Barriers are named by their
// 32-bit shared-memory address: the kernels keep those in registers, where a generic pointer
// would be converted again wherever the compiler rematerialises it.
#pragma once

namespace gemmtune {
namespace mbarrier {

/// Sets up the barrier at `bar` for `count` arrivals per phase (one thread, before any use).
__device__ __forceinline__ void init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
/// After init(), before other threads, the async proxy (TMA complete_tx) or peer blocks of the
/// cluster use the barriers: makes the initialised barriers visible to them.
__device__ __forceinline__ void fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/// Arrives once and adds `bytes` to the transaction count the current phase waits for.
__device__ __forceinline__ void arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/// Arrives once when all of this thread's earlier cp.async have landed (sm_80+: the barrier's
/// expected count must include the arrival, noinc).
__device__ __forceinline__ void arrive_on_copies(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}
/// Arrives on the barrier at the same shared-memory offset in cluster block `rank` (itself
/// included). By default with release at CTA scope only: the ring's arrivals announce that this
/// block's wgmma have finished reading a stage (wgmma.wait_group), which orders nothing in the
/// generic proxy that a peer must see, and release at cluster scope compiles to MEMBAR.ALL.GPU
/// before every arrival, which waits for the thread's outstanding global stores (the previous
/// tile's epilogue) and stalled clustered kernels on every stage. RELEASE_CLUSTER: release at
/// cluster scope, so the peer that acquires the phase (wait<true>) sees this thread's earlier
/// writes, distributed shared-memory stores into that block included.
template <bool RELEASE_CLUSTER = false>
__device__ __forceinline__ void arrive_cluster(unsigned bar, unsigned rank) {
  if constexpr (RELEASE_CLUSTER) {
    asm volatile(
        "{ .reg .b32 r; mapa.shared::cluster.u32 r, %0, %1; "
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r]; }" ::"r"(bar),
        "r"(rank)
        : "memory");
  } else {
    asm volatile(
        "{ .reg .b32 r; mapa.shared::cluster.u32 r, %0, %1; "
        "mbarrier.arrive.release.cta.shared::cluster.b64 _, [r]; }" ::"r"(bar),
        "r"(rank)
        : "memory");
  }
}
/// Whether the phase with this parity has completed (one poll, which may suspend the thread for
/// a while first). ACQUIRE_CLUSTER: acquire at cluster scope, so what peer blocks' threads wrote
/// before their release arrival (arrive_cluster<true>) is visible after it; else at CTA scope.
template <bool ACQUIRE_CLUSTER>
__device__ __forceinline__ unsigned try_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  if constexpr (ACQUIRE_CLUSTER) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; "
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } else {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  }
  return done;
}
/// Returns once the phase with this parity has completed. A barrier in phase n (none of its
/// phases completed yet when n = 0) counts the phase of parity (n - 1) & 1 as completed, so
/// waiting for parity 1 on a fresh barrier returns at once. Every lane of the warp calls it:
/// the loop ends on a warp vote, so the compiler sees the warp leave it together and keeps the
/// loop state of the ring (stage, phase, descriptors) in uniform registers. Ended per lane, the
/// one-consumer-warpgroup kernels carried that state in per-thread registers and moved each
/// wgmma descriptor across with R2UR (four per wgmma). ACQUIRE_CLUSTER as for try_wait.
template <bool ACQUIRE_CLUSTER = false>
__device__ __forceinline__ void wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  do {
    done = try_wait<ACQUIRE_CLUSTER>(bar, parity);
  } while (!__all_sync(0xffffffffu, done));
}

}  // namespace mbarrier
}  // namespace gemmtune
