// The table the build generates from kernel_templates/ (embed_templates.cmake); read it through
// embedded_sources.hpp, not directly.
#pragma once

#include <cstddef>
#include <string_view>

namespace gemmtune::detail {

struct EmbeddedFile {
  std::string_view path;  ///< relative to kernel_templates/, '/'-separated
  std::string_view text;
};

/// kEmbeddedFileCount entries sorted by path, then one empty sentinel.
extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;

}  // namespace gemmtune::detail
