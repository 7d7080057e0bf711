// Writing a result file so that nothing is lost or overwritten by surprise: every command that
// writes a file (export, emit, --markdown, --json files) goes through write_file_safely().
#pragma once

#include <filesystem>
#include <string_view>

namespace gemmtune {

/// Writes `content` to `target` so that a reader sees the old file or the whole new one, never a
/// part. A regular (or missing) target is replaced by a temp file created exclusively (mkstemp,
/// so a link planted under its name is never followed) in the target's folder, written, fsync'd
/// and renamed over it; the new file keeps the old one's permission bits (0666 less the umask
/// for a new file), and the temp file is removed on every error. A character device or FIFO
/// (`/dev/stdout`, a named pipe) is written in place and never replaced, so is a link under
/// /dev or /proc/self/fd to one of them. Any other symbolic link, a directory or another kind of
/// file is refused. Throws Error (exit 1) with one line naming `what` and the path when anything
/// fails: creating, a short write, a full disk, fsync, close or rename.
void write_file_safely(std::filesystem::path const& target, std::string_view content,
                       std::string_view what);

}  // namespace gemmtune
