// Budget parsing.
#include "tuner/search/budget.hpp"

#include <cctype>
#include <string>

#include "src/core/error.hpp"

namespace gemmtune {

Budget parse_budget(std::string_view text) {
  auto fail = [&](std::string const& why) {
    return UsageError("bad budget '" + std::string(text) + "': " + why +
                      " (expected a number of evaluations like 200, or a time like 90s, 5m, 1h)");
  };
  if (text.empty()) throw fail("it is empty");
  std::size_t i = 0;
  long long value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    value = value * 10 + (text[i] - '0');
    if (value > 100000000) throw fail("the number is too large");
    ++i;
  }
  if (i == 0) throw fail("it does not start with a number");
  if (value == 0) throw fail("it must be greater than zero");
  std::string_view const unit = text.substr(i);
  Budget b;
  if (unit.empty()) {
    b.evaluations = value;
  } else if (unit == "s") {
    b.seconds = static_cast<double>(value);
  } else if (unit == "m") {
    b.seconds = 60.0 * static_cast<double>(value);
  } else if (unit == "h") {
    b.seconds = 3600.0 * static_cast<double>(value);
  } else {
    throw fail("unknown unit '" + std::string(unit) + "'");
  }
  return b;
}

}  // namespace gemmtune
