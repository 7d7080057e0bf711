// The median of a sample of timings: the figure every timing in the project reports.
#pragma once

#include <vector>

namespace gemmtune {

/// The median of `samples` (mean of the middle two for an even count); 0 when empty.
double median_of(std::vector<double> samples);

}  // namespace gemmtune
