// GpuSession: everything a worker process does on its GPU — device identity, cuBLAS baselines,
// and running one compiled candidate through verify → time → re-verify. Only worker processes
// create one; the parent never touches CUDA.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "src/core/device_report.hpp"
#include "src/core/eval_job.hpp"
#include "src/core/gpu_identity.hpp"

namespace gemmtune {

/// Wall time of one step of an evaluation, for reading where a candidate's time goes.
struct PhaseTime {
  std::string name;  ///< e.g. "first run: compare"
  double ms = 0.0;
};

/// A worker's long-lived GPU state: cuBLAS handles, rotating buffer sets and references,
/// reused across jobs of the same problem.
class GpuSession {
 public:
  GpuSession();
  ~GpuSession();
  GpuSession(GpuSession const&) = delete;
  GpuSession& operator=(GpuSession const&) = delete;

  DeviceReport const& device() const;

  /// Verify, time, re-verify one candidate. Never throws for candidate failures; a result
  /// with disposition kFault means the context is unusable and the worker must exit.
  /// Sequence: tolerance pass on seeded normal inputs (C poisoned with NaN, guard bands around
  /// A, B and C), exact pass on small integers (fp32/tf32, when job.exact_check; same poison and
  /// guards), timing on rotating buffer sets, then one more verified run on the normal set that
  /// also checks A and B of both sets unchanged: a kernel's writes to its inputs persist, so one
  /// check at the end sees a write made by any verified launch. A candidate that fails earlier
  /// has its inputs checked (and named in the reason) too; modified inputs are always restored.
  /// Throws Error only for environment failures (unreadable cubin, out of memory for the
  /// problem's own buffers, cuBLAS refusing the reference).
  EvalResult evaluate(EvalJob const& job);
  /// Times the default cuBLAS call and the best of cuBLASLt's top-8 algorithms. `ok` is true
  /// when the default call was timed; when cuBLASLt found or ran no algorithm, cublaslt_ms
  /// stays 0, cublaslt_algo_index −1 and `reason` says why.
  BaselineResult baseline(BaselineJob const& job);
  /// The final re-time of a search's best candidates with the default cuBLAS call and one
  /// cuBLASLt algorithm (RetimeJob): each candidate's verified first run, the rounds of
  /// time_interleaved() over all of them, then each candidate's verified run after the rounds
  /// (A and B unchanged, split-K counters back at zero). Failures are each candidate's
  /// Disposition; after a sticky error every candidate without a verdict is kFault.
  RetimeResult retime(RetimeJob const& job);
  /// Times a device-to-device copy (CopyJob) on the session's stream; !ok with the reason when
  /// it cannot run, and after a sticky error.
  CopyResult copy_bandwidth(CopyJob const& job);
  /// The steps of the last evaluate() with their wall times, in order (problem data, load,
  /// each verified run's launch / guard bands / inputs / read-back / compare, timing, ...).
  std::vector<PhaseTime> const& last_phases() const;
  /// True after a sticky CUDA error: every later call answers kFault / !ok at once.
  bool poisoned() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gemmtune
