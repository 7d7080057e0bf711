// Fixed-decimal number text.
#include "src/core/fixed_text.hpp"

#include <cstdio>

namespace gemmtune {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace gemmtune
