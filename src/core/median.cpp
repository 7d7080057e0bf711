// median_of: sorts its own copy of the sample.
#include "src/core/median.hpp"

#include <algorithm>

namespace gemmtune {

double median_of(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  std::size_t const n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

}  // namespace gemmtune
