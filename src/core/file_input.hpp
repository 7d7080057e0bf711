// Reading an input file whole, with a size cap, so that a wrong path (a directory, a device, a
// huge log) is a one-line error naming the file instead of a hang or an allocation failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace gemmtune {

/// The bytes of the regular file `path`, at most `max_bytes` of them. Throws Error with one
/// line: "<path>: no such <what> file (expected <hint>)", "<path>: cannot read the <what>: ...",
/// "<path>: cannot open the <what> for reading" or "<path>: N bytes is more than the X MiB
/// limit for a <what>" (also when the file grows past the cap while it is read).
std::string read_capped_file(std::filesystem::path const& path, std::uintmax_t max_bytes,
                             std::string_view what, std::string_view hint);

/// The message of a file (or text) of `bytes` bytes over the cap, as read_capped_file words it.
std::string too_large_message(std::string const& source, std::uintmax_t bytes,
                              std::uintmax_t max_bytes, std::string_view what);

}  // namespace gemmtune
