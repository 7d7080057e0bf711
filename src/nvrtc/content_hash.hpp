// ContentHash: a 128-bit non-cryptographic hash (XXH3-128) used for cubin-cache keys and
// template provenance. Inputs are framed with their lengths, so ("ab","c") and ("a","bc") hash
// differently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gemmtune {

/// Incremental hash; feed pieces with add(), read the hex digest with hex().
class ContentHash {
 public:
  ContentHash();
  ~ContentHash();
  ContentHash(ContentHash&&) noexcept;
  ContentHash& operator=(ContentHash&&) noexcept;

  /// Adds one length-framed piece.
  ContentHash& add(std::string_view bytes);
  /// 32 lowercase hex digits (the canonical, big-endian form of the 128-bit digest).
  std::string hex() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Hex digest of one piece of text.
std::string content_hash(std::string_view bytes);

}  // namespace gemmtune
