// Split-K in one launch: every slice of a tile stores its FP32 partials to the workspace, counts
// itself on the tile's counter in args.counters, and the slice that arrives last sums all the
// partials (in slice order, so C does not depend on the arrival order) and writes C. The last
// arrival also sets the counter back to zero, so a counter buffer that is zero before a launch
// is zero again after it: the launch plan asks for zeroed counters once, not before every
// launch, and needs no second kernel.
// When the templates are compiled as host C++ for the CPU emulation, the test supplies
// atomicAdd, __threadfence and __ldcg (its blocks run one after another).
#pragma once

namespace gemmtune {
namespace split_k {

/// One thread of a group of threads that has just stored a slice's partials of one tile (every
/// writer fenced its stores, then the group met at a barrier) counts the slice. True in the
/// slice that arrives last, which may then read every other slice's partials (through L2:
/// __ldcg) once the group has met at a barrier again.
__device__ __forceinline__ bool arrive(unsigned* counter, int slices) {
  __threadfence();  // the group's partials, ordered before by the barrier, precede the count
  unsigned const before = atomicAdd(counter, 1u);
  bool const last = before == static_cast<unsigned>(slices - 1);
  if (last) {
    *counter = 0u;    // every slice has counted: nothing in this launch reads it again
    __threadfence();  // the other slices' partials, published before their counts, are visible
  }
  return last;
}

}  // namespace split_k
}  // namespace gemmtune
