// ContentHash: a 128-bit non-cryptographic hash (two independent FNV-1a 64 lanes) used for
// cubin-cache keys and template provenance. Inputs are framed with their lengths, so
// ("ab","c") and ("a","bc") hash differently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmtune {

/// Incremental hash; feed pieces with add(), read the hex digest with hex().
class ContentHash {
 public:
  /// Adds one length-framed piece.
  ContentHash& add(std::string_view bytes);
  /// 32 lowercase hex digits.
  std::string hex() const;

 private:
  void mix(std::string_view bytes);

  std::uint64_t lo_ = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  std::uint64_t hi_ = 0x84222325cbf29ce4ULL;  // a second basis, so the lanes differ
};

/// Hex digest of one piece of text.
std::string content_hash(std::string_view bytes);

}  // namespace gemmtune
