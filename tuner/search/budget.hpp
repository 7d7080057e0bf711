// Search budget: a number of evaluations or a wall time.
#pragma once

#include <string_view>

namespace gemmtune {

/// "200" = 200 evaluations per problem; "60s", "5m", "1h" = wall time per problem.
/// A default-constructed budget is unlimited.
struct Budget {
  long long evaluations = 0;  ///< 0 = unlimited
  double seconds = 0.0;       ///< 0 = unlimited

  bool unlimited() const { return evaluations == 0 && seconds == 0.0; }
};

/// Parses a budget; throws UsageError naming the text and the expected forms.
Budget parse_budget(std::string_view text);

}  // namespace gemmtune
