// FNV-1a over two lanes; the second lane sees every byte rotated so the lanes do not collide
// together on simple patterns.
#include "src/nvrtc/content_hash.hpp"

#include <array>

namespace gemmtune {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

}  // namespace

void ContentHash::mix(std::string_view bytes) {
  for (unsigned char c : bytes) {
    lo_ = (lo_ ^ c) * kFnvPrime;
    hi_ = (hi_ ^ static_cast<unsigned char>((c << 3) | (c >> 5))) * kFnvPrime;
    hi_ ^= hi_ >> 29;
  }
}

ContentHash& ContentHash::add(std::string_view bytes) {
  std::uint64_t n = bytes.size();
  std::array<char, 8> len{};
  for (auto& b : len) {
    b = static_cast<char>(n & 0xff);
    n >>= 8;
  }
  mix(std::string_view(len.data(), len.size()));
  mix(bytes);
  return *this;
}

std::string ContentHash::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[static_cast<std::size_t>(15 - i)] = kDigits[(hi_ >> (4 * i)) & 0xf];
    s[static_cast<std::size_t>(31 - i)] = kDigits[(lo_ >> (4 * i)) & 0xf];
  }
  return s;
}

std::string content_hash(std::string_view bytes) { return ContentHash().add(bytes).hex(); }

}  // namespace gemmtune
