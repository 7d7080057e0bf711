// A number as text with a fixed count of decimals, for every table, report and message.
#pragma once

#include <string>

namespace gemmtune {

/// `v` with `digits` decimals ("%.*f"; inf and nan as printf writes them).
std::string fixed(double v, int digits);

}  // namespace gemmtune
