// The JSON structure checks: depth and duplicate keys with their path, in small objects (a scan)
// and large ones (a hash set), alone or while the document is built; the key cap.
#include "src/core/json_structure.hpp"

#include <string>

#include <gtest/gtest.h>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

std::string error_of(std::string const& text, std::size_t max_keys = 0) {
  try {
    (void)parse_checked_json<nlohmann::json>(text, 4, "t", "", max_keys);
  } catch (Error const& e) {
    return e.what();
  }
  return {};
}

std::string many_keys(int n, char const* tail) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += "\"k" + std::to_string(i) + "\":1,";
  return s + tail + "}";
}

TEST(JsonStructure, DuplicateKeysAreNamedWithTheirPath) {
  EXPECT_EQ(error_of(R"({"a":{"b":1,"b":2}})"), "t: a.b: duplicate key");
  EXPECT_EQ(error_of(R"({"a":[{"x":1},{"x":1,"x":2}]})"), "t: a[1].x: duplicate key");
  // Past the scanned few, the hash set finds them too.
  EXPECT_EQ(error_of(many_keys(1000, "\"k3\":2")), "t: k3: duplicate key");
  EXPECT_EQ(error_of(many_keys(1000, "\"other\":2")), "");
}

TEST(JsonStructure, DepthIsCappedBeforeTheDocumentGrows) {
  EXPECT_EQ(error_of("[[[[[1]]]]]"), "t: [0][0][0][0]: nested deeper than 4 levels");
  EXPECT_EQ(error_of("[[[[1]]]]"), "");
  EXPECT_THROW(check_json_structure(std::string(100000, '['), 4, "t"), Error);
  EXPECT_NO_THROW(check_json_structure("{\"a\":", 4, "t"));  // syntax: the parse's to report
}

TEST(JsonStructure, KeyCapRefusesHugeObjects) {
  EXPECT_EQ(error_of(many_keys(65, "\"z\":1"), 64), "t: k64: more than 64 keys in one object");
  EXPECT_EQ(error_of(many_keys(10, "\"z\":1"), 64), "");
  auto const ordered = parse_checked_json<nlohmann::ordered_json>(R"({"b":1,"a":2})", 4, "t");
  EXPECT_EQ(ordered.begin().key(), "b");  // insertion order kept
}

}  // namespace
}  // namespace gemmtune
