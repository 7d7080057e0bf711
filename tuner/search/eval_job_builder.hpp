// Turns a compiled candidate into the job a worker runs: the launch plan with lowered names,
// and a cubin file the worker can load.
#pragma once

#include <cstdint>
#include <string>

#include "src/core/eval_job.hpp"
#include "src/kernels/family.hpp"
#include "src/nvrtc/compiler.hpp"

namespace gemmtune {

/// Total ptxas spill bytes (stores + loads) over the compiled kernels.
int spill_bytes(CompileResult const& compiled);

/// The EvalJob for a successfully compiled config. Writes the cubin under `cubin_dir` when the
/// compile did not come with a cached file.
EvalJob make_eval_job(Family const& family, KernelConfig const& config, Problem const& problem,
                      CompileResult const& compiled, std::string const& cubin_dir,
                      std::uint64_t seed, TimingSpec const& timing);

/// The EvalJob of a vendor call (cublas:default or a cublaslt algorithm id): nothing to
/// compile, the worker makes the call. Verified by the tolerance pass only: the exact
/// small-integer pass is our kernels' (cuBLAS's reductions need not be exact there).
EvalJob make_vendor_eval_job(KernelConfig const& vendor, Problem const& problem,
                             std::uint64_t seed, TimingSpec const& timing);

}  // namespace gemmtune
