// Even samples of an ordered list.
#include "src/core/even_sample.hpp"

namespace gemmtune {

std::vector<std::size_t> even_sample(std::size_t size, std::size_t count) {
  std::vector<std::size_t> out;
  if (count >= size) {
    for (std::size_t i = 0; i < size; ++i) out.push_back(i);
    return out;
  }
  for (std::size_t i = 0; i < count; ++i) out.push_back((2 * i + 1) * size / (2 * count));
  return out;
}

}  // namespace gemmtune
