// CandidateRunner: loads a candidate's cubin through the runtime's library API (no driver
// symbols), resolves each launch's kernel, raises its shared-memory limit, and launches the
// plan in order with one GemmArgs.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "src/core/eval_job.hpp"
#include "src/gpu/timing_protocol.hpp"
#include "src/launch/plan_launch.hpp"
#include "src/launch/tensor_map_encoder.hpp"

namespace gemmtune {

/// Kernels kept loaded, most recently used first; older ones are unloaded.
inline constexpr std::size_t kLibraryCacheSize = 16;

/// cudaFuncGetAttributes figures of a plan's first kernel.
struct KernelFigures {
  int registers = 0;
  int local_bytes = 0;
  int static_smem = 0;
};

class CandidateRunner {
 public:
  CandidateRunner() = default;
  ~CandidateRunner();
  CandidateRunner(CandidateRunner const&) = delete;
  CandidateRunner& operator=(CandidateRunner const&) = delete;

  /// Loads `cubin_path` (cached by path) and prepares every launch of `plan` for `problem`. A
  /// refusal by CUDA (bad image, missing kernel, shared memory over the limit, grid out of
  /// range) comes back as a failed LaunchStatus; an unreadable file throws Error.
  LaunchStatus prepare(std::string const& cubin_path, LaunchPlan const& plan,
                       Problem const& problem, KernelFigures& first);

  /// Queues the prepared launches in order on `stream`, each with `args` (and the plan's TMA
  /// descriptors over `args`' pointers where a launch takes them); does not wait.
  LaunchStatus launch(GemmArgs const& args, cudaStream_t stream) const;

 private:
  LaunchStatus load(std::string const& cubin_path, cudaLibrary_t& library);

  /// A loaded cubin; the image bytes stay alive as long as the library, since with lazy
  /// loading the runtime may read them again when a kernel is first used in a context.
  struct Loaded {
    std::string path;
    std::string image;
    cudaLibrary_t library = nullptr;
  };
  std::list<Loaded> libraries_;
  std::vector<PreparedLaunch> prepared_;
  std::vector<TensorMapSpec> tensor_maps_;
  Problem problem_;
  TensorMapEncoder encoder_;
};

}  // namespace gemmtune
