// Thread-block clusters (sm_90+): the rank of a block in its cluster, the cluster-wide barrier
// and loads from and stores to a peer block's shared memory (distributed shared memory), shared
// by the families that launch clusters. Compiled as host C++ (the CPU emulation of a template that
// also has a clustered path it never runs) they trap.
#pragma once

namespace gemmtune {
namespace cluster {

/// This block's rank in its cluster (0 … cluster size − 1).
__device__ __forceinline__ unsigned rank() {
  unsigned r = 0;
#if defined(__CUDA_ARCH__)
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#else
  __builtin_trap();
#endif
  return r;
}

/// Every thread of every block of the cluster (none has exited): orders what each wrote to its
/// shared memory (and barrier set-up) before peers read it, and keeps a block's shared memory
/// alive until its peers are done with it.
__device__ __forceinline__ void sync() {
#if defined(__CUDA_ARCH__)
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
#else
  __builtin_trap();
#endif
}

/// Every thread of every block of the cluster, after barriers were initialised and released to
/// the cluster by fence.mbarrier_init: the arrival need order nothing else. sync()'s release
/// arrival compiles to MEMBAR.ALL.GPU and ERRBAR, where 7% of the warp samples of a clustered
/// 1024^3 bf16 launch waited before its first load (ncu, H100).
__device__ __forceinline__ void sync_after_barrier_init() {
#if defined(__CUDA_ARCH__)
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;" :::
                   "memory");
#else
  __builtin_trap();
#endif
}

/// The shared-memory address `addr` (of this block's own window) in block `peer` of the cluster.
__device__ __forceinline__ unsigned map(unsigned addr, unsigned peer) {
  unsigned r = 0;
#if defined(__CUDA_ARCH__)
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(peer));
#else
  (void)addr;
  (void)peer;
  __builtin_trap();
#endif
  return r;
}

/// Four floats at a cluster shared-memory address (16-byte aligned) from map().
__device__ __forceinline__ float4 load4(unsigned cluster_addr) {
  float4 v{};
#if defined(__CUDA_ARCH__)
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(cluster_addr)
               : "memory");
#else
  (void)cluster_addr;
  __builtin_trap();
#endif
  return v;
}

/// Stores four floats at a cluster shared-memory address (16-byte aligned) from map().
__device__ __forceinline__ void store4(unsigned cluster_addr, float4 v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(cluster_addr),
               "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
#else
  (void)cluster_addr;
  (void)v;
  __builtin_trap();
#endif
}

}  // namespace cluster
}  // namespace gemmtune
