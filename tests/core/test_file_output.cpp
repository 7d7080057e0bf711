// write_file_safely(): replaces a regular file whole and keeps its mode, writes devices and pipes
// in place, refuses links and directories, and leaves no temporary file behind on any failure.
#include "src/core/file_output.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  Dir() {
    std::string t = (fs::temp_directory_path() / "gemmtune-file-output-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {}));
  }
};

std::string slurp(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(FileOutput, NewFileAndReplacementKeepingTheMode) {
  Dir d;
  fs::path const p = d.path / "table.json";
  write_file_safely(p, "first", "the test file");
  EXPECT_EQ(slurp(p), "first");
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  write_file_safely(p, "second", "the test file");
  EXPECT_EQ(slurp(p), "second");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(d.entries(), 1u);  // no temporary file left
}

TEST(FileOutput, ALinkIsRefusedAndWhatItPointsToIsUntouched) {
  Dir d;
  fs::path const victim = d.path / "victim";
  std::ofstream(victim) << "keep";
  fs::create_symlink(victim, d.path / "out");
  try {
    write_file_safely(d.path / "out", "evil", "the test file");
    FAIL() << "a symbolic link was written";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), 1);
  }
  EXPECT_EQ(slurp(victim), "keep");
  EXPECT_TRUE(fs::is_symlink(d.path / "out"));
  EXPECT_EQ(d.entries(), 2u);
}

TEST(FileOutput, ADirectoryIsRefused) {
  Dir d;
  EXPECT_THROW(write_file_safely(d.path, "x", "the test file"), Error);
  EXPECT_EQ(d.entries(), 0u);
}

TEST(FileOutput, AFullDeviceIsAnErrorNotASilentLoss) {
  try {
    write_file_safely("/dev/full", "x", "the test file");
    FAIL() << "writing /dev/full succeeded";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));  // written in place, never replaced
}

TEST(FileOutput, APipeIsWrittenInPlace) {
  Dir d;
  fs::path const fifo = d.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_file_safely(fifo, "through the pipe", "the test file");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(d.entries(), 1u);
}

TEST(FileOutput, AMissingFolderLeavesNothingBehind) {
  Dir d;
  EXPECT_THROW(write_file_safely(d.path / "missing" / "t.json", "x", "the test file"), Error);
  EXPECT_EQ(d.entries(), 0u);
}

TEST(FileOutput, AFileNamedLikeTheOldTemporaryIsNotTouched) {
  Dir d;
  std::ofstream(d.path / "k.cu.tmp") << "mine";
  write_file_safely(d.path / "k.cu", "source", "the test file");
  EXPECT_EQ(slurp(d.path / "k.cu.tmp"), "mine");
  EXPECT_EQ(slurp(d.path / "k.cu"), "source");
}

}  // namespace
}  // namespace gemmtune
