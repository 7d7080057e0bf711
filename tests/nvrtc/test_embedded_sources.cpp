// The embedded copies of kernel_templates/ match the files on disk, and template hashes follow
// the file and the common headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "src/core/error.hpp"
#include "src/nvrtc/content_hash.hpp"
#include "src/nvrtc/embedded_sources.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune {
namespace {

namespace fs = std::filesystem;

std::string read(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(EmbeddedSources, EveryTemplateFileIsEmbeddedVerbatim) {
  fs::path const root = gemmtune::test::source_path("kernel_templates");
  std::vector<std::string> on_disk;
  for (auto const& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".cuh") {
      on_disk.push_back(fs::relative(e.path(), root).generic_string());
    }
  }
  std::sort(on_disk.begin(), on_disk.end());
  EXPECT_EQ(embedded_paths(), on_disk);
  for (std::string const& rel : on_disk) {
    auto const text = embedded_source(rel);
    ASSERT_TRUE(text.has_value()) << rel;
    EXPECT_EQ(*text, read(root / rel)) << rel;
  }
}

TEST(EmbeddedSources, KnowsTheCommonHeaderAndTheLadder) {
  for (char const* p : {"common/gemm_args.cuh", "common/fp32_tile_io.cuh", "ladder/naive.cuh",
                        "ladder/warptile.cuh"}) {
    EXPECT_TRUE(embedded_source(p).has_value()) << p;
  }
  EXPECT_FALSE(embedded_source("ladder/missing.cuh").has_value());
  EXPECT_FALSE(embedded_source("naive.cuh").has_value());
}

TEST(EmbeddedSources, TemplateHashIsStableAndPerFile) {
  std::string const a = template_hash("ladder/naive.cuh");
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a, template_hash("ladder/naive.cuh"));
  EXPECT_NE(a, template_hash("ladder/coalesced.cuh"));
  EXPECT_THROW(template_hash("ladder/missing.cuh"), Error);
}

TEST(ContentHash, FramesPiecesByLength) {
  EXPECT_NE(ContentHash().add("ab").add("c").hex(), ContentHash().add("a").add("bc").hex());
  EXPECT_EQ(content_hash("x"), content_hash("x"));
  EXPECT_NE(content_hash("x"), content_hash("y"));
  EXPECT_NE(content_hash(""), content_hash(std::string(1, '\0')));
}

// The digest is XXH3-128 (seed 0, canonical big-endian hex) of each piece's 8-byte
// little-endian length followed by its bytes; the figures are xxHash's own for those inputs.
TEST(ContentHash, IsXxh3OfTheLengthFramedPieces) {
  EXPECT_EQ(content_hash(""), "2c0a8a99dc147d5445c3b49d035665b2");
  EXPECT_EQ(content_hash("abc"), "45bcdc88efffd44520b986a5e7fe1438");
}

}  // namespace
}  // namespace gemmtune
