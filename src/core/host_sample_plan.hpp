// How much of a GEMM to queue when measuring the host's cost per call. Every call queued for a
// host-cost sample also runs on the GPU, so for a long GEMM the samples, not the figure being
// measured, took most of the time: 5 bursts of 32 calls of a 48 ms fp32 GEMM are 7.7 s per
// timing, and a search's re-time did that for every entry of every round. The plan holds the
// samples to a GPU-time budget: fewer samples first (down to a floor), then fewer calls.
#pragma once

namespace gemmtune {

/// The most and the least a host-cost measurement takes, and the GPU time it may queue.
struct HostSampleLimits {
  int samples = 5;             ///< samples (bursts) when the GEMM is short
  int min_samples = 3;
  int calls = 32;              ///< calls per sample when the GEMM is short
  int min_calls = 1;
  double gpu_budget_ms = 20.0; ///< GPU time all samples together may queue
};

/// Samples of calls each; a sample's figure is its wall time over its calls.
struct HostSamplePlan {
  int samples = 0;
  int calls = 0;
  bool operator==(HostSamplePlan const&) const = default;
};

/// The plan for a GEMM of `gpu_ms_per_call` (unknown when ≤ 0: the limits' full plan). Stays
/// within the budget unless the floors (min_samples × min_calls) alone exceed it.
HostSamplePlan host_sample_plan(HostSampleLimits const& limits, double gpu_ms_per_call);

}  // namespace gemmtune
