// Replays the fuzz seed corpora and the kept regression inputs (tests/fuzz/corpus/<target>/,
// tests/fuzz/regressions/<target>/) through the same checks the libFuzzer targets run, so CI
// (g++, no clang) keeps every finding fixed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/fuzz/fuzz_checks.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune::fuzz {
namespace {

namespace fs = std::filesystem;

/// Every input file of one target, corpus and regressions.
std::vector<fs::path> inputs(std::string const& target) {
  std::vector<fs::path> out;
  for (char const* kind : {"corpus", "regressions"}) {
    fs::path const dir = gemmtune::test::source_path("tests/fuzz") / kind / target;
    if (!fs::is_directory(dir)) continue;
    for (auto const& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file()) out.push_back(e.path());
    }
  }
  return out;
}

std::string slurp(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

template <typename Check>
int replay(std::string const& target, Check check) {
  int n = 0;
  for (fs::path const& p : inputs(target)) {
    EXPECT_EQ(check(slurp(p)), "") << p;
    ++n;
  }
  return n;
}

}  // namespace

TEST(FuzzReplay, TuningTable) {
  EXPECT_GE(replay("tuning_table", check_tuning_table), 5);
  // The valid seeds must parse, or the fuzzer never reaches the round trip.
  for (char const* name : {"valid_one_entry.json", "valid_empty.json", "with_default.json",
                           "valid_alternatives.json"}) {
    std::string const text = slurp(gemmtune::test::source_path("tests/fuzz") / "corpus/tuning_table" / name);
    EXPECT_NO_THROW(parse_tuning_table(text, name)) << name;
  }
}

TEST(FuzzReplay, KernelId) { EXPECT_GE(replay("kernel_id", check_kernel_id), 5); }

TEST(FuzzReplay, Shape) { EXPECT_GE(replay("shape", check_shape), 5); }

TEST(FuzzReplay, Frame) {
  EXPECT_GE(replay("frame", check_frame), 5);
  // Deep nesting is refused before a document is built, with the frame's path.
  std::string const deep(100000, '[');
  try {
    parse_frame_body(deep);
    ADD_FAILURE() << "a frame nested 100000 deep was accepted";
  } catch (ProtocolError const& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_frame_body(R"({"id":1,"id":2})"), ProtocolError);
  EXPECT_NO_THROW(parse_frame_body(R"({"id":1,"type":"ping","payload":{}})"));
}

TEST(FuzzReplay, ChecksReportWhatTheyShould) {
  EXPECT_EQ(check_shape("8x8x8"), "");
  EXPECT_EQ(check_shape("0x8x8"), "");  // refused with gemmtune::Error: fine
  EXPECT_EQ(check_kernel_id("naive:BM=32,BN=8"), "");
  EXPECT_EQ(check_kernel_id("naive:BM=32)"), "");
  EXPECT_NE(guarded([]() -> std::string { throw std::out_of_range("x"); }), "");
}

}  // namespace gemmtune::fuzz
