// Which items of a long ordered list to keep when only some can be shown or compiled.
#pragma once

#include <cstddef>
#include <vector>

namespace gemmtune {

/// `count` indices of [0, size), in order, spread evenly over it (all of them when
/// count ≥ size): the middle of each of `count` equal slices, so both ends stay in reach. The
/// dry run's sample of a family's valid configs (which come in grid order, so the first few
/// would all share the leading parameters' smallest values) and the report's sampled landscape.
std::vector<std::size_t> even_sample(std::size_t size, std::size_t count);

}  // namespace gemmtune
