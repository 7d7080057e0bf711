// Per (GPU, precision, layout) defaults for shapes that were never tuned, after CLBlast: the
// config with the best mean relative performance over all tuned shapes, missing shapes
// counting 0. Computed from every verified trial when the cache is exported.
#pragma once

#include <string>
#include <vector>

#include "src/core/problem.hpp"

namespace gemmtune {

/// One verified time of a config on a shape (all of one GPU, precision and layout).
struct ShapeTiming {
  Problem problem;        ///< resolved; only m, n, k and align are used
  std::string kernel_id;
  double time_ms = 0.0;   ///< > 0
};

/// The default chosen for problems whose alignment class is ≥ `align`.
struct DefaultChoice {
  int align = 16;
  std::string kernel_id;
  double mean_relative = 0.0;  ///< mean over all shapes of best_time / this config's time
  int shapes = 0;              ///< shapes where this config has a time
  bool operator==(DefaultChoice const&) const = default;
};

/// For each alignment class A among the shapes, the config that maximises mean relative
/// performance over *all* shapes among configs verified on some shape with align ≤ A (a config
/// that ran correctly on A-aligned data needs no more than A-byte alignment). Relative
/// performance on a shape is best_time / config_time; a config without a time there scores 0;
/// several times of one config on one shape count as the fastest. Ties go to the config with
/// more shapes, then to the smaller id, so the result does not depend on input order.
/// Returns choices in ascending align; empty for no timings.
std::vector<DefaultChoice> choose_defaults(std::vector<ShapeTiming> const& timings);

}  // namespace gemmtune
