// Lookup over the generated table of embedded kernel templates.
#include "nvrtc/embedded_sources.hpp"

#include "core/error.hpp"
#include "nvrtc/content_hash.hpp"
#include "nvrtc/embedded_sources_data.hpp"

namespace gemmtune {

std::optional<std::string_view> embedded_source(std::string_view path) {
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
    if (detail::kEmbeddedFiles[i].path == path) return detail::kEmbeddedFiles[i].text;
  }
  return std::nullopt;
}

std::vector<std::string> embedded_paths() {
  std::vector<std::string> paths;
  paths.reserve(detail::kEmbeddedFileCount);
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
    paths.emplace_back(detail::kEmbeddedFiles[i].path);
  }
  return paths;
}

std::string template_hash(std::string_view path) {
  auto const text = embedded_source(path);
  if (!text) {
    throw Error("no embedded kernel template '" + std::string(path) +
                "' (expected a path under kernel_templates/, e.g. ladder/naive.cuh)");
  }
  ContentHash h;
  h.add(path).add(*text);
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
    auto const& f = detail::kEmbeddedFiles[i];
    if (f.path.substr(0, 7) == "common/" && f.path != path) h.add(f.path).add(f.text);
  }
  return h.hex();
}

}  // namespace gemmtune
