// The hint a lookup that found nothing gives when the cache or table holds the same M×N×K in
// another precision or layout: the default precision is fp32, and a bf16 user's first `list
// trials --shape ...` otherwise prints an empty table without saying why.
#pragma once

#include <string>
#include <vector>

#include "src/core/problem.hpp"

namespace gemmtune {

/// "<where> has MxNxK in bf16 NN, fp16 TN (choose with --precision and --layout)", naming each
/// (precision, layout) of `held` with `asked`'s M, N and K other than `asked`'s own, in a fixed
/// order; "" when there is none.
std::string other_variants_hint(Problem const& asked, std::vector<Problem> const& held,
                                std::string const& where);

}  // namespace gemmtune
