// write_file_safely(): temp file + fsync + rename for regular files, in-place writes for
// devices and pipes, refusal for everything else (see file_output.hpp).
#include "src/core/file_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

[[noreturn]] void fail(std::string_view what, std::filesystem::path const& path,
                       std::string const& why) {
  throw Error("cannot write " + std::string(what) + " '" + path.string() + "': " + why);
}

std::string errno_text(int e) { return std::strerror(e); }

/// Writes all of `content` to `fd`; the errno of the first failure, or 0.
int write_all(int fd, std::string_view content) {
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t const n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

bool is_stream_node(struct stat const& st) { return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode); }

/// The links whose pointing at a device or pipe is the documented intent (`--out /dev/stdout`).
bool stream_link_path(std::filesystem::path const& p) {
  std::string const s = p.lexically_normal().string();
  return s.rfind("/dev/", 0) == 0 || s.rfind("/proc/self/fd/", 0) == 0;
}

void write_in_place(std::filesystem::path const& target, std::string_view content,
                    std::string_view what) {
  int const fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail(what, target, errno_text(errno));
  int const e = write_all(fd, content);
  int const c = ::close(fd) == 0 ? 0 : errno;
  if (e != 0) fail(what, target, errno_text(e));
  if (c != 0) fail(what, target, errno_text(c));
}

}  // namespace

void write_file_safely(std::filesystem::path const& target, std::string_view content,
                       std::string_view what) {
  if (target.empty()) fail(what, target, "empty path");
  struct stat st {};
  mode_t mode = 0;
  if (::lstat(target.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      struct stat followed {};
      if (stream_link_path(target) && ::stat(target.c_str(), &followed) == 0 &&
          is_stream_node(followed)) {
        write_in_place(target, content, what);
        return;
      }
      fail(what, target, "it is a symbolic link; name the file it points to");
    }
    if (is_stream_node(st)) {
      write_in_place(target, content, what);
      return;
    }
    if (S_ISDIR(st.st_mode)) fail(what, target, "it is a directory");
    if (!S_ISREG(st.st_mode)) fail(what, target, "it is not a regular file, a device or a pipe");
    mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    fail(what, target, errno_text(errno));
  } else {
    mode_t const mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }

  std::filesystem::path const dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int const fd = ::mkstemp(temp.data());
  if (fd < 0) fail(what, target, "cannot create a temporary file in '" + dir.string() + "': " +
                                     errno_text(errno));
  int e = write_all(fd, content);
  if (e == 0 && ::fchmod(fd, mode) != 0) e = errno;
  if (e == 0 && ::fsync(fd) != 0) e = errno;
  if (::close(fd) != 0 && e == 0) e = errno;
  if (e == 0 && ::rename(temp.c_str(), target.c_str()) != 0) e = errno;
  if (e != 0) {
    ::unlink(temp.c_str());
    fail(what, target, errno_text(e));
  }
}

}  // namespace gemmtune
