// Ladder results in the report: a committed H200 ladder file read back, drawn as the seeds' bar
// chart and table, and hostile or broken files refused with the JSON path of the first fault.
#include "src/report/ladder_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/report/html_report.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune {
namespace {

using test::source_path;

std::string committed_text() {
  std::ifstream in(source_path("tests/data/report/h200-ladder.json"));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::size_t count(std::string const& hay, std::string const& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

/// The svg of the ladder section.
std::string ladder_svg(std::string const& page) {
  std::size_t const section = page.find("<section id=\"ladder\">");
  std::size_t const start = page.find("<svg", section);
  return page.substr(start, page.find("</svg>", start) - start);
}

TEST(LadderReport, TheCommittedH200RunReadsBack) {
  ReportLadder const l = parse_ladder_json(committed_text(), "h200-ladder.json");
  EXPECT_EQ(l.problem.m, 4096);
  EXPECT_EQ(l.problem.precision, Precision::kFP32);
  EXPECT_EQ(l.gpu, "NVIDIA H200 / sm_90 / 132 SMs");
  ASSERT_EQ(l.stages.size(), 7u);
  EXPECT_EQ(l.stages.front().stage, "1 naive");
  EXPECT_EQ(l.stages.front().kernel, "naive:BM=32,BN=32");
  EXPECT_NEAR(l.cublas_ms, 2.688, 1e-3);
  EXPECT_TRUE(l.protocol.empty());  // written before the ladder recorded its protocol
  EXPECT_EQ(l.provenance.at("cuBLAS"), "13.1.0");
}

TEST(LadderReport, ThePageDrawsABarPerStageAndBothVendorsWithPercentOfCublas) {
  nlohmann::json doc = nlohmann::json::parse(committed_text());
  doc["stages"][2]["disposition"] = "wrong_result";
  doc["stages"][2]["reason"] = "max error 3.1 above the bound";
  doc["stages"][2]["time_ms"] = 0.0;
  doc["timing"]["protocol"] = "graph";
  ReportData d;
  d.ladders.push_back(parse_ladder_json(doc.dump(), "l.json"));
  std::string const page = render_html(d);
  std::string const svg = ladder_svg(page);
  // cuBLAS, cuBLASLt and the six stages that ran; the failed one has no bar.
  EXPECT_NE(svg.find("data-kind=\"bars\" data-marks=\"8\""), std::string::npos) << svg.substr(0, 200);
  EXPECT_EQ(count(svg, "class=\"bar cublas\""), 1u);
  EXPECT_EQ(count(svg, "class=\"bar cublaslt\""), 1u);
  EXPECT_EQ(count(svg, "class=\"bar own\""), 6u);
  EXPECT_NE(svg.find(">100.0%<"), std::string::npos);  // cuBLAS against itself
  // 2688.06 / 4096.06 µs: the vectorized stage at 65.6 % of cuBLAS.
  EXPECT_NE(svg.find(">65.6%<"), std::string::npos);
  EXPECT_NE(page.find("wrong_result: max error 3.1 above the bound"), std::string::npos);
  EXPECT_NE(page.find("timing protocol: graph"), std::string::npos);
  std::string const md = render_markdown(d);
  EXPECT_NE(md.find("| 6 vectorized | `vectorized:BM=128,BN=128,BK=8,TM=8,TN=8` | 4096.1 | 33.55 | "
                    "65.6% | 65.3% | ok |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 3 smem_tiled | `smem_tiled:BM=32,BN=32,BK=32` | - | - | - | - | wrong_result |"),
            std::string::npos)
      << md;
}

TEST(LadderReport, WithoutALadderFileTheSectionSaysHowToGetOne) {
  std::string const page = render_html(ReportData{});
  std::size_t const at = page.find("<section id=\"ladder\">");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(page.find("--ladder FILE", at), std::string::npos);
}

struct Broken {
  std::string name;
  std::function<void(nlohmann::json&)> change;
  std::string message;  ///< after "b.json: "
};

TEST(LadderReport, BrokenFilesAreRefusedWithTheirJsonPath) {
  std::vector<Broken> const cases = {
      {"missing", [](nlohmann::json& j) { j.erase("cublas_ms"); },
       "cublas_ms: missing (expected a number > 0)"},
      {"unknown", [](nlohmann::json& j) { j["stages"][1]["speedup"] = 2; },
       "stages[1].speedup: unknown key (expected one of stage, kernel, disposition, reason, "
       "time_ms, tflops, registers, pct_cublas, pct_cublaslt, max_err_ratio)"},
      {"disposition", [](nlohmann::json& j) { j["stages"][0]["disposition"] = "fine"; },
       "stages[0].disposition: unknown disposition 'fine': expected ok, rejected, compile_error, "
       "launch_error, fault, timeout, crash, wrong_result or skipped"},
      {"ok without time", [](nlohmann::json& j) { j["stages"][4]["time_ms"] = 0; },
       "stages[4].time_ms: a stage that ran ok needs a time > 0"},
      {"negative time", [](nlohmann::json& j) { j["stages"][4]["time_ms"] = -1; },
       "stages[4].time_ms: expected a number >= 0, got -1"},
      {"no stages", [](nlohmann::json& j) { j["stages"] = nlohmann::json::array(); },
       "stages: expected an array of 1 to 64 stages, got an array"},
      {"kernel", [](nlohmann::json& j) { j["stages"][0]["kernel"] = "naive:BM=032,BN=32"; },
       "stages[0].kernel: expected the canonical id \"naive:BM=32,BN=32\", got "
       "\"naive:BM=032,BN=32\""},
      {"protocol", [](nlohmann::json& j) { j["timing"]["protocol"] = "events"; },
       "timing.protocol: unknown timing protocol 'events' (expected graph or stream)"},
      {"problem", [](nlohmann::json& j) { j["problem"]["m"] = 0; },
       "problem.m: expected an integer in [1, 16777216], got 0"},
      {"precision", [](nlohmann::json& j) { j["problem"]["precision"] = "fp64"; },
       "problem.precision: expected one of \"fp32\", \"tf32\", \"fp16\", \"bf16\", \"e4m3\", "
       "\"e4m3-row\", \"e4m3-blk\", \"e5m2\", \"e5m2-row\", \"e5m2-blk\", got \"fp64\""},
      {"top level", [](nlohmann::json& j) { j = nlohmann::json::array(); },
       "top level: expected an object, got an array"},
  };
  for (Broken const& c : cases) {
    nlohmann::json doc = nlohmann::json::parse(committed_text());
    c.change(doc);
    try {
      parse_ladder_json(doc.dump(), "b.json");
      ADD_FAILURE() << c.name << ": accepted";
    } catch (Error const& e) {
      EXPECT_EQ(std::string(e.what()), "b.json: " + c.message) << c.name;
    }
  }
}

TEST(LadderReport, TextThatIsNoLadderFileIsRefused) {
  auto const message = [](std::string const& text) {
    try {
      parse_ladder_json(text, "t.json");
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("{\"gpu\": \"a\", \"gpu\": \"b\"}"), "t.json: gpu: duplicate key");
  EXPECT_NE(message("{\"stages\": [[[[[1]]]]]}").find("nested deeper than 4 levels"),
            std::string::npos);
  EXPECT_EQ(message("{\"gpu\":").rfind("t.json: not valid JSON: ", 0), 0u) << message("{\"gpu\":");
}

TEST(LadderReport, AFileThatIsMissingOrADirectoryIsNamed) {
  auto const message = [](std::filesystem::path const& p) {
    try {
      read_ladder_file(p);
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("/nonexistent/l.json"),
            "/nonexistent/l.json: no such ladder result file (expected the JSON of gemmtune ladder "
            "--json-out)");
  std::filesystem::path const dir = source_path("tests/data/report");
  EXPECT_EQ(message(dir).find("no such ladder result file"), dir.string().size() + 2);
  EXPECT_EQ(read_ladder_file(dir / "h200-ladder.json").stages.size(), 7u);
}

}  // namespace
}  // namespace gemmtune
