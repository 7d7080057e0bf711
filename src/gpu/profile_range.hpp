// Named NVTX ranges around what a worker runs on the GPU (a candidate's evaluation, the vendor
// baselines, a re-timing), so that a profiler attached to the worker can select one of them:
// `ncu --nvtx --nvtx-include "gemmtune@candidate/"` profiles the candidate's launches and none of
// the baselines' (which also launch cuBLAS kernels, a vendor candidate's among them), and an nsys
// timeline shows which is which. Without a profiler attached the calls cost next to nothing.
#pragma once

namespace gemmtune {

/// Range names, all in the NVTX domain "gemmtune".
inline constexpr char const* kCandidateRange = "candidate";  ///< GpuSession::evaluate
inline constexpr char const* kBaselineRange = "baseline";    ///< GpuSession::baseline
inline constexpr char const* kRetimeRange = "retime";        ///< GpuSession::retime

/// Pushes the range `name` in the domain "gemmtune" for its lifetime (one thread; ranges nest).
class ProfileRange {
 public:
  explicit ProfileRange(char const* name);
  ~ProfileRange();
  ProfileRange(ProfileRange const&) = delete;
  ProfileRange& operator=(ProfileRange const&) = delete;
};

}  // namespace gemmtune
