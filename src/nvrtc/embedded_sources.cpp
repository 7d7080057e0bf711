// Lookup over the generated table of embedded kernel templates.
#include "src/nvrtc/embedded_sources.hpp"

#include <map>
#include <mutex>

#include "src/core/error.hpp"
#include "src/nvrtc/content_hash.hpp"
#include "src/nvrtc/embedded_sources_data.hpp"

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
  // The embedded files are fixed at build time, so a path's hash never changes: the search asks
  // for it with every proposed config (provenance), which would otherwise re-hash the template
  // and every common header each time.
  static std::mutex mutex;
  static std::map<std::string, std::string, std::less<>> memo;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find(path); it != memo.end()) return it->second;
  }
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
  std::string hex = h.hex();
  std::lock_guard<std::mutex> lock(mutex);
  memo.emplace(std::string(path), hex);
  return hex;
}

}  // namespace gemmtune
