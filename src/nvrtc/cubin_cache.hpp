// CubinCache: compiled cubins on disk, content-addressed by the compile's cache key. Each entry
// is <key>.cubin plus <key>.json (the key material, lowered names, ptxas figures, options, log),
// each written to a temporary file and renamed into place, so concurrent processes never see
// half an entry.
#pragma once

#include <optional>
#include <string>

#include "src/nvrtc/compiler.hpp"

namespace gemmtune {

/// One cache directory. Methods are safe to call from many threads and processes at once.
class CubinCache {
 public:
  /// Creates the directory when missing; throws Error naming it when that fails.
  explicit CubinCache(std::string dir);

  /// The entry for `key` with from_cache = true, cubin_path set and compile_ms = 0, or nullopt
  /// when there is none, it is unreadable, truncated or inconsistent, or it was stored for
  /// other key material than `material` (a hash collision); store() then rewrites it.
  std::optional<CompileResult> load(std::string const& key, std::string const& material) const;

  /// Publishes a successful result under `key`, with the key material it was hashed from;
  /// returns the cubin's path, or "" when the directory cannot be written (the compile result
  /// is still good, only not cached).
  std::string store(std::string const& key, std::string const& material,
                    CompileResult const& result) const;

  /// Paths of an entry's two files.
  std::string cubin_path(std::string const& key) const;
  std::string json_path(std::string const& key) const;

  std::string const& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace gemmtune
