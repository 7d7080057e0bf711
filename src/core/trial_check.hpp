// Figures of a stored trial checked as strictly as a table's: what `import` demands of a foreign
// cache and what `check` looks for in the cache in use, so a row no search could have written
// (a negative time, a NaN ratio, an impossible shape) is named, never ranked.
#pragma once

#include <string>

#include "src/core/trial.hpp"

namespace gemmtune {

/// The first thing wrong with a trial's problem or figures, as "<field>: <why>", or "" when
/// every field is in range. Kernel ids are the caller's to check (the families live in src/kernels).
std::string trial_defect(Trial const& t);

/// The same for a baseline row: cuBLAS and cuBLASLt figures of one problem on one GPU, 0 where
/// not timed; "" when they are in range.
std::string baseline_defect(Problem const& problem, double cublas_ms, double cublaslt_ms);

}  // namespace gemmtune
