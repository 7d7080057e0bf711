// Tuning table: round trips, stable output, and malformed tables rejected with the JSON path.
#include "src/core/tuning_table.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {
namespace {

using Json = nlohmann::json;

GpuIdentity h200() { return {"NVIDIA H200", 9, 0, 132}; }
GpuIdentity a100() { return {"NVIDIA A100-SXM4-80GB", 8, 0, 108}; }

Problem shape(std::int64_t m, std::int64_t n, std::int64_t k, int align,
              Precision p = Precision::kFP32, Layout l = Layout::kNN) {
  Problem x;
  x.m = m;
  x.n = n;
  x.k = k;
  x.align = align;
  x.precision = p;
  x.layout = l;
  return x;
}

TuningTable sample_table() {
  TuningTableBuilder b("2025-06-01T12:00:00Z");
  b.add_entry(h200(), shape(4096, 4096, 4096, 16), parse_kernel_id("simt:BM=128,BN=128,BK=8"),
              2.5, 55.0, 3.0, 2.0, {}, TableSpread{2.45, 2.6, 6})
      .board = TableBoard{1755, 61};
  b.add_entry(h200(), shape(1000, 1000, 1000, 4), parse_kernel_id("simt:BM=64,BN=64,BK=8"),
              0.25, 8.0, std::nullopt, std::nullopt,
              {{parse_kernel_id("simt:BM=32,BN=64,BK=8"), 0.9},
               {parse_kernel_id("simt:BM=64,BN=32,BK=8"), 0.75}});
  b.add_entry(a100(), shape(512, 512, 512, 16, Precision::kBF16, Layout::kTN),
              parse_kernel_id("mma:BM=128,BN=128,BK=32"), 0.01, 26.8, 0.012, std::nullopt);
  b.add_default(h200(), Precision::kFP32, Layout::kNN, 16, parse_kernel_id("simt:BM=128,BN=128,BK=8"),
                0.97, 2);
  b.add_default(h200(), Precision::kFP32, Layout::kNN, 4, parse_kernel_id("simt:BM=64,BN=64,BK=8"),
                0.8, 1);
  return b.build();
}

TEST(TuningTable, BuilderSortsAndAssignsGpuIds) {
  TuningTable const t = sample_table();
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(t.gpus[0].id, 0);
  EXPECT_EQ(t.gpus[0].gpu, h200());
  EXPECT_EQ(t.gpus[1].gpu, a100());
  ASSERT_EQ(t.entries.size(), 3u);
  // Sorted by (gpu, precision, layout, m, n, k, align).
  EXPECT_EQ(t.entries[0].problem.m, 1000);
  EXPECT_EQ(t.entries[1].problem.m, 4096);
  EXPECT_EQ(t.entries[2].gpu, 1);
  ASSERT_EQ(t.defaults.size(), 2u);
  EXPECT_EQ(t.defaults[0].align, 4);
  EXPECT_EQ(t.gemmtune_version, gemmtune_version());
  EXPECT_DOUBLE_EQ(*t.entries[1].ratio_cublas(), 3.0 / 2.5);
  EXPECT_FALSE(t.entries[0].ratio_cublas().has_value());
}

TEST(TuningTable, RoundTripIsExactAndOutputStable) {
  TuningTable const t = sample_table();
  std::string const text = format_tuning_table(t);
  TuningTable const back = parse_tuning_table(text);
  EXPECT_EQ(back, t);
  EXPECT_EQ(format_tuning_table(back), text);
  Json const j = Json::parse(text);
  EXPECT_EQ(j["format"], "gemmtune-table");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["gpus"][0]["cc"], "9.0");
  EXPECT_EQ(j["entries"][1]["kernel"], "simt:BM=128,BN=128,BK=8");
  EXPECT_TRUE(j["entries"][0]["cublas_ms"].is_null());
  EXPECT_DOUBLE_EQ(j["entries"][1]["ratio_cublaslt"].get<double>(), 2.0 / 2.5);
  // The documented key order, not alphabetical.
  EXPECT_LT(text.find("\"format\""), text.find("\"version\""));
  EXPECT_LT(text.find("\"version\""), text.find("\"gpus\""));
  EXPECT_EQ(text.back(), '\n');
}

TEST(TuningTable, OptionalBaselinesMayBeAbsent) {
  Json j = Json::parse(format_tuning_table(sample_table()));
  for (auto const* key : {"cublas_ms", "cublaslt_ms", "ratio_cublas", "ratio_cublaslt"}) {
    j["entries"][0].erase(key);
  }
  TuningTable const t = parse_tuning_table(j.dump());
  EXPECT_FALSE(t.entries[0].cublas_ms.has_value());
}

TEST(TuningTable, FileRoundTrip) {
  auto const dir = std::filesystem::path(testing::TempDir()) /
                   ("gemmtune_table_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto const file = dir / "table.json";
  write_tuning_table(sample_table(), file);
  EXPECT_EQ(read_tuning_table(file), sample_table());
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  std::filesystem::remove_all(dir);
}

TEST(TuningTable, MissingFileIsAClearError) {
  try {
    read_tuning_table("/nonexistent/table.json");
    FAIL() << "expected an error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/table.json"), std::string::npos);
  }
}

TEST(TuningTable, OversizedFileRefusedBeforeReading) {
  auto const file = std::filesystem::path(testing::TempDir()) /
                    ("gemmtune_big_" + std::to_string(::getpid()) + ".json");
  { std::ofstream(file) << "{"; }
  std::filesystem::resize_file(file, kMaxTableBytes + 1);  // sparse: nothing is written
  try {
    read_tuning_table(file);
    FAIL() << "expected an error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("MiB limit"), std::string::npos) << e.what();
  }
  std::filesystem::remove(file);
}

TEST(TuningTable, OversizedTextRefused) {
  std::string text(kMaxTableBytes + 1, ' ');
  EXPECT_THROW(parse_tuning_table(text), Error);
}

TEST(TuningTable, BuilderRefusesDuplicateEntries) {
  TuningTableBuilder b("2025-06-01T12:00:00Z");
  b.add_entry(h200(), shape(64, 64, 64, 16), parse_kernel_id("simt:BM=64"), 1.0, 1.0,
              std::nullopt, std::nullopt);
  b.add_entry(h200(), shape(64, 64, 64, 16), parse_kernel_id("simt:BM=32"), 1.0, 1.0,
              std::nullopt, std::nullopt);
  EXPECT_THROW(b.build(), Error);
}

// ---- malformed tables ------------------------------------------------------------------

struct Malformed {
  std::string name;
  std::function<std::string(Json)> make;  // from the valid sample's JSON to the bad text
  std::string expected;                   // must appear in the error message
};

std::function<std::string(Json)> edit(std::function<void(Json&)> f) {
  return [f](Json j) {
    f(j);
    return j.dump(1);
  };
}

std::string nested(int levels) {
  std::string s = "{\"format\":\"gemmtune-table\",\"version\":1,\"x\":";
  s += std::string(static_cast<std::size_t>(levels), '[');
  s += std::string(static_cast<std::size_t>(levels), ']');
  return s + "}";
}

std::vector<Malformed> malformed_cases() {
  return {
      {"NotJson", [](Json) { return std::string("{\"format\": "); }, "not valid JSON"},
      {"RootArray", [](Json) { return std::string("[]"); }, "top level: expected an object, got an array"},
      {"WrongFormat", edit([](Json& j) { j["format"] = "other-table"; }),
       "format: expected \"gemmtune-table\""},
      {"MissingFormat", edit([](Json& j) { j.erase("format"); }), "format: missing"},
      {"NewerVersion", edit([](Json& j) { j["version"] = 2; }),
       "version: this gemmtune reads table version 1, got 2 (written by a newer gemmtune)"},
      {"VersionAsText", edit([](Json& j) { j["version"] = "1"; }), "version: this gemmtune reads"},
      {"UnknownTopKey", edit([](Json& j) { j["comment"] = "hi"; }), "comment: unknown key"},
      {"EmptyGeneratedAt", edit([](Json& j) { j["generated_at"] = ""; }),
       "generated_at: expected a non-empty string"},
      {"GpusNotArray", edit([](Json& j) { j["gpus"] = Json::object(); }),
       "gpus: expected an array, got an object"},
      {"GpuBadCc", edit([](Json& j) { j["gpus"][0]["cc"] = "9"; }),
       "gpus[0].cc: expected a compute capability such as \"9.0\", got \"9\""},
      {"GpuCcAsNumber", edit([](Json& j) { j["gpus"][0]["cc"] = 90; }), "gpus[0].cc: expected"},
      {"GpuZeroSms", edit([](Json& j) { j["gpus"][1]["sm_count"] = 0; }),
       "gpus[1].sm_count: expected an integer in [1, 100000], got 0"},
      {"GpuDuplicateId", edit([](Json& j) { j["gpus"][1]["id"] = 0; }),
       "gpus[1].id: duplicate of gpus[0].id"},
      {"GpuDuplicateIdentity", edit([](Json& j) {
         j["gpus"][1]["name"] = j["gpus"][0]["name"];
         j["gpus"][1]["cc"] = j["gpus"][0]["cc"];
         j["gpus"][1]["sm_count"] = j["gpus"][0]["sm_count"];
       }),
       "gpus[1]: same name, cc and sm_count as gpus[0]"},
      {"EntryNotObject", edit([](Json& j) { j["entries"][0] = 5; }),
       "entries[0]: expected an object, got 5"},
      {"NegativeM", edit([](Json& j) { j["entries"][2]["m"] = -5; }),
       "entries[2].m: expected an integer in [1, 16777216], got -5"},
      {"HugeN", edit([](Json& j) { j["entries"][0]["n"] = 16777217; }),
       "entries[0].n: expected an integer in [1, 16777216], got 16777217"},
      {"UnsignedOverflowK", edit([](Json& j) { j["entries"][0]["k"] = 18446744073709551615ull; }),
       "entries[0].k: expected an integer in [1, 16777216], got 18446744073709551615"},
      {"FractionalK", edit([](Json& j) { j["entries"][1]["k"] = 12.5; }),
       "entries[1].k: expected an integer in [1, 16777216], got 12.5"},
      {"UnknownPrecision", edit([](Json& j) { j["entries"][0]["precision"] = "fp64"; }),
       "entries[0].precision: expected one of \"fp32\", \"tf32\", \"fp16\", \"bf16\", \"e4m3\", \"e4m3-row\", \"e4m3-blk\", \"e5m2\", \"e5m2-row\", \"e5m2-blk\", got \"fp64\""},
      {"LowercaseLayout", edit([](Json& j) { j["entries"][0]["layout"] = "nn"; }),
       "entries[0].layout: expected one of \"NN\", \"NT\", \"TN\", \"TT\", got \"nn\""},
      {"BadAlign", edit([](Json& j) { j["entries"][1]["align"] = 3; }),
       "entries[1].align: expected one of 1, 2, 4, 8, 16, got 3"},
      {"BadKernelId", edit([](Json& j) { j["entries"][0]["kernel"] = "Simt:BM=1"; }),
       "entries[0].kernel: bad kernel id 'Simt:BM=1'"},
      {"NonCanonicalKernelId", edit([](Json& j) { j["entries"][0]["kernel"] = "simt:BM=064"; }),
       "entries[0].kernel: expected the canonical id \"simt:BM=64\""},
      {"ZeroTime", edit([](Json& j) { j["entries"][1]["time_ms"] = 0; }),
       "entries[1].time_ms: expected a number > 0, got 0"},
      {"TimeAsText", edit([](Json& j) { j["entries"][1]["time_ms"] = "fast"; }),
       "entries[1].time_ms: expected a number > 0, got \"fast\""},
      {"NegativeCublas", edit([](Json& j) { j["entries"][1]["cublas_ms"] = -1.0; }),
       "entries[1].cublas_ms: expected a number > 0, got -1.0"},
      {"DanglingGpu", edit([](Json& j) { j["entries"][2]["gpu"] = 7; }),
       "entries[2].gpu: no GPU with id 7 in gpus"},
      {"UnknownEntryKey", edit([](Json& j) { j["entries"][1]["note"] = "x"; }),
       "entries[1].note: unknown key"},
      {"MissingTflops", edit([](Json& j) { j["entries"][0].erase("tflops"); }),
       "entries[0].tflops: missing (expected a number > 0)"},
      {"DuplicateEntry", edit([](Json& j) { j["entries"].push_back(j["entries"][0]); }),
       "entries[3]: duplicate of entries[0] (same gpu, precision, layout, m, n, k and align)"},
      {"InconsistentRatio", edit([](Json& j) { j["entries"][1]["ratio_cublas"] = 3.0; }),
       "entries[1].ratio_cublas: expected cublas_ms / time_ms = 1.2, got 3.0"},
      {"RatioWithoutBaseline", edit([](Json& j) { j["entries"][0]["ratio_cublas"] = 1.0; }),
       "entries[0].ratio_cublas: expected null because cublas_ms is null"},
      {"MissingRatio", edit([](Json& j) { j["entries"][1].erase("ratio_cublaslt"); }),
       "entries[1].ratio_cublaslt: missing"},
      {"MeanRelativeAboveOne", edit([](Json& j) { j["defaults"][1]["mean_relative"] = 1.5; }),
       "defaults[1].mean_relative: expected a number in (0, 1], got 1.5"},
      {"ZeroShapes", edit([](Json& j) { j["defaults"][0]["shapes"] = 0; }),
       "defaults[0].shapes: expected an integer in [1, 2147483647], got 0"},
      {"DuplicateDefault", edit([](Json& j) { j["defaults"].push_back(j["defaults"][1]); }),
       "defaults[2]: duplicate of defaults[1] (same gpu, precision, layout and align)"},
      {"DefaultDanglingGpu", edit([](Json& j) { j["defaults"][0]["gpu"] = 3; }),
       "defaults[0].gpu: no GPU with id 3 in gpus"},
      {"DuplicateKey",
       [](Json j) {
         std::string s = j.dump();
         std::string const needle = "\"m\":";
         auto const at = s.find(needle, s.find("\"entries\""));
         s.insert(at, "\"m\":1,");
         return s;
       },
       "entries[0].m: duplicate key"},
      {"TooDeep", [](Json) { return nested(40); }, "nested deeper than 8 levels"},
      {"AlternativesNotArray", edit([](Json& j) { j["entries"][0]["alternatives"] = 1; }),
       "entries[0].alternatives: expected an array of at most 16 alternatives, got 1"},
      {"TooManyAlternatives", edit([](Json& j) {
         Json alts = Json::array();
         for (int i = 1; i <= 17; ++i) {
           alts.push_back({{"kernel", "simt:BM=" + std::to_string(i)}, {"relative", 0.5}});
         }
         j["entries"][0]["alternatives"] = alts;
       }),
       "entries[0].alternatives: expected an array of at most 16 alternatives, got an array"},
      {"AlternativeIsTheWinner", edit([](Json& j) {
         j["entries"][0]["alternatives"][0]["kernel"] = j["entries"][0]["kernel"];
       }),
       "entries[0].alternatives[0].kernel: the entry's own kernel"},
      {"DuplicateAlternative", edit([](Json& j) {
         j["entries"][0]["alternatives"][1]["kernel"] = j["entries"][0]["alternatives"][0]["kernel"];
       }),
       "entries[0].alternatives[1].kernel: duplicate of entries[0].alternatives[0].kernel"},
      {"ZeroRelative", edit([](Json& j) { j["entries"][0]["alternatives"][0]["relative"] = 0; }),
       "entries[0].alternatives[0].relative: expected a number in (0, 100], got 0"},
      {"UnknownAlternativeKey", edit([](Json& j) { j["entries"][0]["alternatives"][0]["ms"] = 1; }),
       "entries[0].alternatives[0].ms: unknown key"},
      {"SpreadBelowTime", edit([](Json& j) { j["entries"][1]["spread"]["hi_ms"] = 2.4; }),
       "entries[1].spread: expected lo_ms <= time_ms <= hi_ms"},
      {"SpreadNotPositive", edit([](Json& j) { j["entries"][1]["spread"]["lo_ms"] = 0; }),
       "entries[1].spread.lo_ms: expected a number > 0, got 0"},
      {"SpreadNoRounds", edit([](Json& j) { j["entries"][1]["spread"]["rounds"] = 0; }),
       "entries[1].spread.rounds: expected an integer in [1, 1000], got 0"},
      {"SpreadUnknownKey", edit([](Json& j) { j["entries"][1]["spread"]["median"] = 1; }),
       "entries[1].spread.median: unknown key"},
      {"BoardZeroClock", edit([](Json& j) { j["entries"][1]["board"]["sm_clock_mhz"] = 0; }),
       "entries[1].board.sm_clock_mhz: expected an integer in [1, 10000], got 0"},
      {"BoardFractionalTemperature",
       edit([](Json& j) { j["entries"][1]["board"]["temperature_c"] = 60.5; }),
       "entries[1].board.temperature_c: expected an integer in [1, 200], got 60.5"},
      {"BoardMissingTemperature",
       edit([](Json& j) { j["entries"][1]["board"].erase("temperature_c"); }),
       "entries[1].board.temperature_c"},
      {"BoardUnknownKey", edit([](Json& j) { j["entries"][1]["board"]["power_w"] = 650; }),
       "entries[1].board.power_w: unknown key"},
      {"AlternativeBadKernel", edit([](Json& j) { j["entries"][0]["alternatives"][1]["kernel"] = "x"; }),
       "entries[0].alternatives[1].kernel: bad kernel id 'x'"},
  };
}

class MalformedTable : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedTable, RejectedWithPath) {
  Json const valid = Json::parse(format_tuning_table(sample_table()));
  std::string const text = GetParam().make(valid);
  try {
    parse_tuning_table(text, "t.json");
    FAIL() << "accepted: " << text.substr(0, 400);
  } catch (Error const& e) {
    std::string const msg = e.what();
    EXPECT_EQ(msg.rfind("t.json: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(GetParam().expected), std::string::npos)
        << "message: " << msg << "\nexpected to contain: " << GetParam().expected;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(TuningTable, MalformedTable, testing::ValuesIn(malformed_cases()),
                         [](auto const& info) { return info.param.name; });

// ---- M ranges ----------------------------------------------------------------------------

// Three M points of one layer and one of another: the builder makes one range of three
// buckets, contiguous from the first M to the last.
TuningTable ranged_table() {
  TuningTableBuilder b("2025-06-01T12:00:00Z");
  for (std::int64_t m : {1, 128, 4096}) {
    b.add_entry(h200(), shape(m, 4096, 4096, 16, Precision::kBF16, Layout::kNT),
                parse_kernel_id("mma:BM=" + std::to_string(m)), 0.1, 10.0, 0.1, 0.1);
  }
  b.add_entry(h200(), shape(64, 1024, 4096, 16, Precision::kBF16, Layout::kNT),
              parse_kernel_id("mma:BM=64"), 0.1, 10.0, 0.1, 0.1);
  return b.build();
}

TEST(TuningTable, BucketsSplitAtTheGeometricMeans) {
  EXPECT_EQ(range_buckets({1, 128, 4096}),
            (std::vector<TableRangeBucket>{{1, 11, 1}, {12, 724, 128}, {725, 4096, 4096}}));
  EXPECT_EQ(range_buckets({7}), (std::vector<TableRangeBucket>{{7, 7, 7}}));
  EXPECT_EQ(range_buckets({1, 2, 3}),
            (std::vector<TableRangeBucket>{{1, 1, 1}, {2, 2, 2}, {3, 3, 3}}));
  TuningTable const t = ranged_table();
  ASSERT_EQ(t.ranges.size(), 1u);
  TableRange const& r = t.ranges[0];
  EXPECT_EQ(std::tie(r.n, r.k, r.precision, r.layout, r.align),
            std::make_tuple(std::int64_t{4096}, std::int64_t{4096}, Precision::kBF16, Layout::kNT,
                            16));
  EXPECT_EQ(r.buckets, range_buckets({1, 128, 4096}));
}

TEST(TuningTable, RangesRoundTripAndTablesWithoutThemStillLoad) {
  TuningTable const t = ranged_table();
  std::string const text = format_tuning_table(t);
  EXPECT_EQ(parse_tuning_table(text), t);
  EXPECT_EQ(format_tuning_table(parse_tuning_table(text)), text);
  // A table without ranges writes no "ranges" key and reads back without any.
  std::string const plain = format_tuning_table(sample_table());
  EXPECT_EQ(Json::parse(plain).count("ranges"), 0u);
  EXPECT_TRUE(parse_tuning_table(plain).ranges.empty());
}

TEST(TuningTable, HostileRangesAreRejectedWithTheirPath) {
  Json const valid = Json::parse(format_tuning_table(ranged_table()));
  auto bad = [&](std::function<void(Json&)> f, std::string const& expected) {
    Json j = valid;
    f(j);
    try {
      parse_tuning_table(j.dump(), "t.json");
      ADD_FAILURE() << "accepted: " << j["ranges"].dump();
    } catch (Error const& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos)
          << e.what() << "\nexpected: " << expected;
    }
  };
  Json::json_pointer const b0("/ranges/0/buckets/0"), b1("/ranges/0/buckets/1");
  bad([&](Json& j) { j[b1]["m_lo"] = 11; }, "ranges[0].buckets[1].m_lo: overlaps ranges[0].buckets[0]");
  bad([&](Json& j) { j[b1]["m_lo"] = 13; }, "ranges[0].buckets[1].m_lo: a gap after");
  bad([&](Json& j) { j[b0]["m_lo"] = 20; }, "ranges[0].buckets[0]: inverted");
  bad([&](Json& j) { j[b1]["m"] = 800; }, "ranges[0].buckets[1].m: expected m_lo <= m <= m_hi");
  bad([&](Json& j) { j[b1]["m"] = 100; }, "ranges[0].buckets[1].m: no entry for 100x4096x4096");
  bad([&](Json& j) { j["/ranges/0/buckets/2/m_hi"_json_pointer] = std::int64_t{1} << 40; },
      "ranges[0].buckets[2].m_hi: expected an integer in [1, 16777216]");
  bad([&](Json& j) { j["/ranges/0/buckets"_json_pointer] = Json::array(); },
      "ranges[0].buckets: expected an array of 1 to 4096 buckets");
  bad([&](Json& j) { j["/ranges/0/align"_json_pointer] = 8; }, "no entry for 1x4096x4096 bf16 NT a8");
  bad([&](Json& j) { j["/ranges/0/gpu"_json_pointer] = 5; }, "ranges[0].gpu: no GPU with id 5");
  bad([&](Json& j) { j[b0]["weight"] = 1; }, "ranges[0].buckets[0].weight: unknown key");
  bad([&](Json& j) { j["ranges"].push_back(j["ranges"][0]); }, "ranges[1]: duplicate of ranges[0]");
  bad([&](Json& j) { j["ranges"] = Json::object(); }, "ranges: expected an array");
}

TEST(TuningTable, AlternativesRoundTripAndAreOptional) {
  TuningTable const t = sample_table();
  auto const& e = t.entries[0];  // sorted: the H200's 1000³ a4 entry comes first
  ASSERT_EQ(e.problem.m, 1000);
  ASSERT_EQ(e.alternatives.size(), 2u);
  EXPECT_EQ(e.alternatives[1].kernel.id(), "simt:BM=64,BN=32,BK=8");
  EXPECT_DOUBLE_EQ(e.alternatives[1].relative, 0.75);
  EXPECT_EQ(parse_tuning_table(format_tuning_table(t)), t);
  // Entries without alternatives write no key, so tables without them read and write as before.
  Json const j = Json::parse(format_tuning_table(t));
  EXPECT_TRUE(j["entries"][0].contains("alternatives"));
  EXPECT_FALSE(j["entries"][1].contains("alternatives"));
}

TEST(TuningTable, SpreadRoundTripsAndIsOptional) {
  TuningTable const t = sample_table();
  auto const& e = t.entries[1];  // sorted: the H200's 4096³ entry
  ASSERT_EQ(e.problem.m, 4096);
  ASSERT_TRUE(e.spread.has_value());
  EXPECT_EQ(*e.spread, (TableSpread{2.45, 2.6, 6}));
  EXPECT_FALSE(t.entries[0].spread.has_value());
  EXPECT_EQ(parse_tuning_table(format_tuning_table(t)), t);
  Json const j = Json::parse(format_tuning_table(t));
  EXPECT_EQ(j["entries"][1]["spread"], (Json{{"lo_ms", 2.45}, {"hi_ms", 2.6}, {"rounds", 6}}));
  EXPECT_FALSE(j["entries"][0].contains("spread"));  // tables without spreads read as before
}

TEST(TuningTable, BoardRoundTripsAndIsOptional) {
  TuningTable const t = sample_table();
  ASSERT_EQ(t.entries[1].problem.m, 4096);
  ASSERT_TRUE(t.entries[1].board.has_value());
  EXPECT_EQ(*t.entries[1].board, (TableBoard{1755, 61}));
  EXPECT_FALSE(t.entries[0].board.has_value());
  EXPECT_EQ(parse_tuning_table(format_tuning_table(t)), t);
  Json j = Json::parse(format_tuning_table(t));
  EXPECT_EQ(j["entries"][1]["board"], (Json{{"sm_clock_mhz", 1755}, {"temperature_c", 61}}));
  EXPECT_FALSE(j["entries"][0].contains("board"));
  j["entries"][1]["board"] = nullptr;  // null reads as absent, as the other optional fields
  EXPECT_FALSE(parse_tuning_table(j.dump()).entries[1].board.has_value());
}


/// A table whose 4096³ bf16 pick is a cuBLASLt algorithm, with our best kernel beside it.
TuningTable vendor_table() {
  TuningTableBuilder b("2026-12-02T00:00:00Z");
  KernelConfig const lt = parse_kernel_id(
      "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,"
      "COMPUTE=0");
  b.add_entry(h200(), shape(4096, 4096, 4096, 16, Precision::kBF16), lt, 0.180, 760.0, 0.185,
              0.180, {{parse_kernel_id("wgmma:BM=128,BN=256,BK=64"), 0.95}},
              TableSpread{0.178, 0.183, 6},
              TableOwnFigure{parse_kernel_id("wgmma:BM=128,BN=256,BK=64"), 0.190}, "13.1.0");
  b.add_entry(h200(), shape(512, 512, 512, 16, Precision::kBF16), cublas_default(), 0.010, 26.8,
              0.010, 0.011, {}, std::nullopt, std::nullopt, "13.1.0");
  return b.build();
}

TEST(TuningTable, VendorPicksRoundTripMarkedWithTheirOwnFigure) {
  TuningTable const t = vendor_table();
  ASSERT_EQ(t.entries.size(), 2u);
  TableEntry const& big = t.entries[1];
  EXPECT_TRUE(big.vendor());
  EXPECT_EQ(big.cublas_version, "13.1.0");
  ASSERT_TRUE(big.own.has_value());
  EXPECT_EQ(big.own->kernel.id(), "wgmma:BM=128,BN=256,BK=64");
  EXPECT_NEAR(*big.own_ratio_cublas(), 0.185 / 0.190, 1e-12);
  EXPECT_EQ(t.entries[0].kernel.id(), "cublas:default");
  EXPECT_EQ(parse_tuning_table(format_tuning_table(t)), t);
  Json const j = Json::parse(format_tuning_table(t));
  EXPECT_EQ(j["entries"][1]["vendor"], true);
  EXPECT_EQ(j["entries"][1]["own"]["kernel"], "wgmma:BM=128,BN=256,BK=64");
  EXPECT_EQ(j["entries"][0]["kernel"], "cublas:default");
  // Own picks carry none of the vendor fields, so their tables read and write as before.
  Json const own = Json::parse(format_tuning_table(sample_table()));
  for (auto const& e : own["entries"]) {
    EXPECT_FALSE(e.contains("vendor"));
    EXPECT_FALSE(e.contains("own"));
  }
}

TEST(TuningTable, OwnKernelsAgainstTheFasterVendorFigure) {
  TuningTable const t = vendor_table();
  TableEntry const& big = t.entries[1];  // cuBLAS 0.185, cuBLASLt 0.180, ours 0.190
  ASSERT_TRUE(big.best_vendor_ms().has_value());
  EXPECT_DOUBLE_EQ(*big.best_vendor_ms(), 0.180);
  EXPECT_NEAR(*big.own_ratio_best_vendor(), 0.180 / 0.190, 1e-12);
  // A vendor pick without a verified own kernel has no own figure to set beside the vendor's.
  EXPECT_FALSE(t.entries[0].own_ratio_best_vendor().has_value());
  // An own pick is its own figure; a missing baseline leaves the other.
  TableEntry own = big;
  own.kernel = parse_kernel_id("wgmma:BM=128,BN=256,BK=64");
  own.own.reset();
  own.time_ms = 0.170;
  EXPECT_NEAR(*own.own_ratio_best_vendor(), 0.180 / 0.170, 1e-12);
  own.cublaslt_ms.reset();
  EXPECT_NEAR(*own.own_ratio_best_vendor(), 0.185 / 0.170, 1e-12);
  own.cublas_ms.reset();
  EXPECT_FALSE(own.own_ratio_best_vendor().has_value());
}

TEST(TuningTable, VendorFieldsAreChecked) {
  std::string const text = format_tuning_table(vendor_table());
  auto refused = [&](std::function<void(Json&)> const& edit, std::string const& expected) {
    Json j = Json::parse(text);
    edit(j);
    try {
      parse_tuning_table(j.dump(), "t.json");
      ADD_FAILURE() << "accepted; expected: " << expected;
    } catch (Error const& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused([](Json& j) { j["entries"][1].erase("vendor"); }, "entries[1].vendor");
  refused([](Json& j) { j["entries"][1]["vendor"] = false; }, "entries[1].vendor");
  refused([](Json& j) { j["entries"][1].erase("cublas_version"); }, "entries[1].cublas_version");
  refused([](Json& j) { j["entries"][1]["cublas_version"] = "13.1;rm"; }, "cuBLAS version");
  refused([](Json& j) { j["entries"][1]["own"]["kernel"] = "cublas:default"; },
          "entries[1].own.kernel");
  refused([](Json& j) { j["entries"][1]["alternatives"][0]["kernel"] = "cublas:default"; },
          "alternatives[0].kernel");
  refused(
      [](Json& j) {
        j["entries"][1]["kernel"] =
            "cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=0,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,"
            "CLUSTER=0,COMPUTE=0";
      },
      "SPLITK=0 is out of range");
  refused(
      [](Json& j) {
        j["entries"][0]["kernel"] = "warptile:BM=64";
        j["entries"][0].erase("cublas_version");
      },
      "entries[0].vendor");
}

TEST(TuningTable, DepthWithinCapIsOnlyAnUnknownKey) {
  // 7 levels under the root stay inside the cap, so the complaint is about the key instead.
  try {
    parse_tuning_table(nested(7));
    FAIL();
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("x: unknown key"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gemmtune
