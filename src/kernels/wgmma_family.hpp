// Descriptor of the `wgmma` family (kernel_templates/wgmma/wgmma.cuh): Hopper sm_90a GEMM with
// TMA loads into an mbarrier-guarded shared-memory ring, a producer warpgroup and one or two
// wgmma consumer warpgroups (cooperative or ping-pong), 2- and 4-block clusters with TMA
// multicast of one operand (B along M, A along N), persistent grouped-raster scheduling,
// split-K, K-major workspace copies of tf32 and FP8 operands stored MN-major, and padded copies
// of 16-bit operands TMA cannot read in place (alignment below 16 bytes), and swapped operands
// (Cᵀ = Bᵀ·Aᵀ, for a short M). The registry (family.cpp) lists it.
#pragma once

#include <cstdint>
#include <string>

#include "src/kernels/family.hpp"

namespace gemmtune {

/// The wgmma descriptor: its space, constraints, NVRTC request (always sm_90a) and launch plan
/// (the main kernel with TMA descriptors for A and B, after the tf32 K-major copy if any, before
/// the split-K reduce kernel when SK > 2).
class WgmmaFamily final : public Family {
 public:
  std::string_view name() const override { return "wgmma"; }
  std::string_view description() const override;
  std::string_view template_file() const override { return "wgmma/wgmma.cuh"; }
  int min_arch() const override { return 90; }
  bool supports(Precision p) const override;

  std::vector<ParamSpec> params() const override;
  std::vector<Constraint> constraints() const override;
  CompileRequest compile_request(KernelConfig const& cfg, Problem const& problem,
                                 std::string const& arch) const override;
  LaunchPlan launch_plan(KernelConfig const& cfg, Problem const& problem) const override;
  int smem_bytes(KernelConfig const& cfg, Problem const& problem) const override;
  int threads(KernelConfig const& cfg) const override;
  int registers_per_thread(KernelConfig const& cfg, Problem const& problem) const override;
  RooflineTraits roofline_traits(KernelConfig const& cfg, Problem const& problem) const override;
  /// The problem itself, or with SW = 1 its transpose (Problem::transposed): the kernel then
  /// computes Cᵀ = Bᵀ·Aᵀ and its tiles run along N and M. Every function below takes the
  /// caller's problem and reads this one.
  Problem tile_problem(KernelConfig const& cfg, Problem const& problem) const override;

  /// K depth of one pipeline stage: 64 elements for fp16/bf16, 32 for tf32 (128 bytes).
  static int block_k(Precision p);
  /// Tiles of C: ceil(M/BM)·ceil(N/BN) (SW = 1: ceil(N/BM)·ceil(M/BN)).
  static std::int64_t tiles(KernelConfig const& cfg, Problem const& problem);
  /// Work units the clusters walk: ceil(tile rows / CL) · tile columns · SK, or with clusters
  /// along N (CA=1) tile rows · ceil(tile columns / CL) · SK, or with K-split pairs (CA=2)
  /// tiles · SK (both blocks of a pair take the same tile).
  static std::int64_t units(KernelConfig const& cfg, Problem const& problem);
  /// Whether the kernel computes Cᵀ = Bᵀ·Aᵀ (SW = 1). An id without SW means 0.
  static bool swaps_operands(KernelConfig const& cfg);
  /// Whether a cluster's blocks lie side by side along N and share A (CL > 1, CA = 1). An id
  /// without CA means 0.
  static bool shares_a_tiles(KernelConfig const& cfg);
  /// Whether a cluster's blocks are stacked along M and share B (CL > 1, CA = 0).
  static bool shares_b_tiles(KernelConfig const& cfg);
  /// Whether a cluster's blocks split one tile's K range and share nothing (CL > 1, CA = 2).
  static bool splits_k(KernelConfig const& cfg);
  /// Whether the persistent clusters share out the k blocks of all units (stream-K, PE = 3).
  static bool streams_k(KernelConfig const& cfg);
  /// Stream-K: the most shares that hold k blocks of one unit, so the most slices of partials
  /// a unit is stored in (1: no unit is cut); 1 without stream-K.
  static std::int64_t stream_slices(KernelConfig const& cfg, Problem const& problem);
  /// Blocks of the main launch: CL · units (PE=0), CL · min(units, SMs assumed / CL) (PE=1, 2),
  /// or the SMs assumed, in whole clusters (PE=3).
  static std::int64_t grid_blocks(KernelConfig const& cfg, Problem const& problem);
  /// The two TMA descriptors (A, B) the main kernel reads, box and 128-byte swizzle (SW = 1:
  /// the kernel's A box over the caller's B, its B box over A).
  static std::vector<TensorMapSpec> tensor_maps(KernelConfig const& cfg, Problem const& problem);
  /// "gemmtune::wgmma_gemm<BM,BN,ST,CW,CL,PE,GM,SK,EP,CA,TU,PL,ML,SW,T,TA,TB>"
  /// (wgmma_gemm_cluster when CL > 1; TA, TB of the problem the tiles cover).
  std::string main_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// "gemmtune::wgmma_kmajor_copy<SK,copy A,B K-major>": the first launch of tf32 plans whose
  /// layout stores an operand MN-major (NN, TN, TT); it writes K-major copies to the workspace.
  /// "gemmtune::wgmma_padded_copy<SK,TA,TB>": the first launch of 16-bit plans below 16-byte
  /// alignment; it copies the operands TMA cannot read in place, rows padded to 128 bytes.
  std::string copy_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// FP32 partials of SK slices (stream-K: stream_slices), rows padded to a multiple of 4 (none
  /// when there is one slice), then the K-major tf32 copies of MN-major operands or the padded
  /// copies of both 16-bit operands (below 16-byte alignment), each on a 128-byte boundary.
  static std::int64_t workspace_bytes(KernelConfig const& cfg, Problem const& problem);
  /// Whether the last slice of each tile sums the split-K partials (one launch, counters):
  /// SK = 2 with at most 64 accumulators per consumer thread (= the template's
  /// LAST_SLICE_SUMS); otherwise the reduce kernel does.
  static bool sums_in_last_slice(KernelConfig const& cfg);
  /// "gemmtune::wgmma_reduce<SK,T>" when the last slice does not sum, or for SW = 1
  /// "gemmtune::wgmma_reduce_transposed<SK,T>" (32×32 tiles turned in shared memory).
  std::string reduce_expression(KernelConfig const& cfg, Problem const& problem) const;
  /// Split-K counters (sums_in_last_slice, or stream-K): one per consumer warp of each tile,
  /// 4·CW per tile (4 with PE=2, where one warpgroup owns a whole tile).
  static std::int64_t counter_bytes(KernelConfig const& cfg, Problem const& problem);

  /// SMs the persistent grid is sized for: the launch plan does not see the device, so it
  /// assumes an H100/H200 (132).
  static constexpr int kPersistentSms = 132;
};

/// The registered instance.
Family const& wgmma_family();

}  // namespace gemmtune
