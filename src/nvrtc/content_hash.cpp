// XXH3-128 from the xxHash library, inlined (header-only mode), so the binaries and the runtime
// library take no extra shared-library dependency.
#include "src/nvrtc/content_hash.hpp"

#include <array>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gemmtune {

struct ContentHash::State {
  XXH3_state_t xxh;
};

ContentHash::ContentHash() : state_(std::make_unique<State>()) {
  (void)XXH3_128bits_reset(&state_->xxh);
}

ContentHash::~ContentHash() = default;
ContentHash::ContentHash(ContentHash&&) noexcept = default;
ContentHash& ContentHash::operator=(ContentHash&&) noexcept = default;

ContentHash& ContentHash::add(std::string_view bytes) {
  std::uint64_t n = bytes.size();
  std::array<unsigned char, 8> len{};
  for (auto& b : len) {
    b = static_cast<unsigned char>(n & 0xff);
    n >>= 8;
  }
  (void)XXH3_128bits_update(&state_->xxh, len.data(), len.size());
  (void)XXH3_128bits_update(&state_->xxh, bytes.data(), bytes.size());
  return *this;
}

std::string ContentHash::hex() const {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(&state_->xxh));
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(32);
  for (unsigned char const byte : canonical.digest) {
    s += kDigits[byte >> 4];
    s += kDigits[byte & 0xf];
  }
  return s;
}

std::string content_hash(std::string_view bytes) { return ContentHash().add(bytes).hex(); }

}  // namespace gemmtune
