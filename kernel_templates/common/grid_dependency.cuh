// Programmatic dependent launch (sm_90+): a kernel the host launches with programmatic stream
// serialization may start while the previous kernel in its stream is still running. Its blocks
// then wait (griddepcontrol.wait) until that kernel has completed and its memory is visible
// before they touch global memory, so only the launch and the block's set-up overlap the
// previous kernel's tail. A kernel lets the next such launch in (griddepcontrol.launch_dependents)
// once all of its blocks have called allow_dependents() or exited.
//
// Where: simt and mma let it in after their main loop. Letting it in at the start put the next
// launch's waiting blocks beside the running ones for the whole main loop, and on the H200 that
// made simt 7% slower at 1000³ and 18% at 16×4096×4096 (after the loop: 0% and 12% faster,
// bench/results/2026-11-29-h200-grid-dependency.md). The persistent wgmma kernel, one block per
// SM, lets it in at the start; reduce and copy kernels when they exit.
//
// Every kernel the host may launch that way must call wait_for_prior_grids() before its first
// global access; the host marks those launches (KernelLaunch::waits_for_prior_grids). Launched
// without the attribute, or compiled below sm_90 or as host C++ for the CPU emulation, these
// calls do nothing.
#pragma once

namespace gemmtune {
namespace grid_dependency {

/// Blocks until the kernels this launch depends on have completed and their writes are visible.
__device__ __forceinline__ void wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the next programmatically serialized launch in the stream start early.
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Both at the start of a kernel: the next launch may begin as soon as all of this grid's blocks
/// run (its blocks then wait in turn for this grid).
__device__ __forceinline__ void enter() {
  wait_for_prior_grids();
  allow_dependents();
}

}  // namespace grid_dependency
}  // namespace gemmtune
