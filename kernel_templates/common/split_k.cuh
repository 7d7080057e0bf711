// Split-K in one launch (when last_slice_sums(SK)): every slice of a tile stores its FP32
// partials to the workspace, counts itself on the tile's counter in args.counters, and the
// slice that arrives last sums all the partials (in slice order, so C does not depend on the
// arrival order) and writes C. The last
// arrival also sets the counter back to zero, so a counter buffer that is zero before a launch
// is zero again after it: the launch plan asks for zeroed counters once, not before every
// launch, and needs no second kernel.
//
// Ordering: the threads that stored a slice's partials meet at a barrier (bar.sync or
// __syncwarp, which order their memory accesses), then one of them counts with an acq_rel atomic
// at GPU scope: its release covers the group's stores, its acquire the other slices' stores
// published by their counts, and a barrier after it hands that on to the group. A fence in every
// thread (__threadfence: MEMBAR.SC.GPU each) cost the H200 more than the reduce kernel it saves.
// The acquire also invalidates the SM's L1, so the last slice reads the partials with plain
// loads. When the templates are compiled as host C++ for the CPU emulation, the test supplies
// atomicAdd (its blocks run one after another).
#pragma once

namespace gemmtune {
namespace split_k {

/// Whether SK slices sum in the last slice of each tile (else the plan's reduce kernel sums
/// them). The last slice adds the SK slices one after another while the rest of the GPU may sit
/// idle; a reduce kernel spreads the sum over every SM but costs a launch. On the H200 the
/// single launch won at SK = 2 (128x4096x4096 bf16 wgmma: 17.8 us against 19.2 us) and lost
/// from SK = 4 (16x4096x4096 bf16 mma SK = 4: 17.4 against 16.7 us; SK = 8: 22.9 against
/// 15.6 us; fp32 simt SK = 8 and 16 lost 2 to 15%). It lost even with 16-row mma tiles whose
/// last slice fetched every slice's few KiB in one or two trips: 14.9 against 11.5 us at SK = 4,
/// 15.9 against 11.9 at SK = 8 (bench/results/2026-11-30-h200-skinny-tiles.md).
__host__ __device__ constexpr bool last_slice_sums(int slices) { return slices == 2; }

/// Called by one thread of the group that has just stored a slice's partials of one tile, after
/// the group's barrier. True in the slice that arrives last, which may read every other slice's
/// partials once the group has met at a barrier again.
__device__ __forceinline__ bool arrive(unsigned* counter, int slices) {
  unsigned before;
#if defined(__CUDA_ARCH__)
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
               : "=r"(before)
               : "l"(counter)
               : "memory");
#else
  before = atomicAdd(counter, 1u);
#endif
  bool const last = before == static_cast<unsigned>(slices - 1);
  if (last) *counter = 0u;  // every slice has counted: nothing in this launch reads it again
  return last;
}

}  // namespace split_k
}  // namespace gemmtune
