// Capped whole-file reads for the documents gemmtune takes as input (tables, ladder results).
#include "src/core/file_input.hpp"

#include <fstream>

#include "src/core/error.hpp"

namespace gemmtune {

std::string too_large_message(std::string const& source, std::uintmax_t bytes,
                              std::uintmax_t max_bytes, std::string_view what) {
  return source + ": " + std::to_string(bytes) + " bytes is more than the " +
         std::to_string(max_bytes >> 20) + " MiB limit for a " + std::string(what);
}

std::string read_capped_file(std::filesystem::path const& path, std::uintmax_t max_bytes,
                             std::string_view what, std::string_view hint) {
  std::string const src = path.string();
  std::string const w(what);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(src + ": no such " + w + " file (expected " + std::string(hint) + ")");
  }
  auto const size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(src + ": cannot read the " + w + ": " + ec.message());
  if (size > max_bytes) throw Error(too_large_message(src, size, max_bytes, what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(src + ": cannot open the " + w + " for reading");
  std::string text;
  // Read at most one byte past the cap, in case the file grew after the size check.
  text.resize(static_cast<std::size_t>(max_bytes) + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes) throw Error(too_large_message(src, text.size(), max_bytes, what));
  return text;
}

}  // namespace gemmtune
