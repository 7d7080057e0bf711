// Reading a ladder run's JSON (what `gemmtune ladder --json-out` writes) into ReportLadder.
#include "src/report/ladder_file.hpp"

#include "src/core/error.hpp"
#include "src/core/eval_job.hpp"
#include "src/core/file_input.hpp"
#include "src/core/json_reader.hpp"
#include "src/core/json_structure.hpp"

namespace gemmtune {
namespace {

using Json = JsonReader::Json;

// The file is flat: the top level, problem, timing, stages and one stage's object.
constexpr int kMaxLadderDepth = 4;
constexpr std::size_t kMaxLadderKeys = 32;
constexpr std::size_t kMaxText = 256;
constexpr std::size_t kMaxStages = 64;

class LadderReader : public JsonReader {
 public:
  using JsonReader::JsonReader;

  /// A finite number ≥ 0 (a failed stage's time is 0).
  double non_negative(Json const& obj, std::string const& path, std::string_view key) const {
    Json const& v = member(obj, path, key, "a number >= 0");
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0.0) {
      expected(json_path::join(path, key), "a number >= 0", v);
    }
    return v.get<double>();
  }

  /// A string that may be empty (a stage's reason).
  std::string any_text(Json const& obj, std::string const& path, std::string_view key) const {
    Json const& v = member(obj, path, key, "a string");
    if (!v.is_string() || v.get_ref<std::string const&>().size() > 4096) {
      expected(json_path::join(path, key), "a string of at most 4096 characters", v);
    }
    return v.get<std::string>();
  }

  Problem problem(Json const& root) const {
    Json const& p = member(root, "", "problem", "an object");
    object(p, "problem", {"m", "n", "k", "precision", "layout", "align"});
    Problem out;
    out.m = integer(p, "problem", "m", 1, kMaxDim);
    out.n = integer(p, "problem", "n", 1, kMaxDim);
    out.k = integer(p, "problem", "k", 1, kMaxDim);
    out.precision = precision(p, "problem");
    out.layout = layout(p, "problem");
    out.align = align(p, "problem");
    return out;
  }

  ReportLadderStage stage(Json const& s, std::string const& path) const {
    object(s, path,
           {"stage", "kernel", "disposition", "reason", "time_ms", "tflops", "registers",
            "pct_cublas", "pct_cublaslt", "max_err_ratio"});
    ReportLadderStage out;
    out.stage = text(s, path, "stage", kMaxText);
    out.kernel = kernel(s, path).id();
    std::string const d = text(s, path, "disposition", kMaxText);
    try {
      out.disposition = parse_disposition(d);
    } catch (Error const& e) {
      fail(json_path::join(path, "disposition"), e.what());
    }
    out.reason = any_text(s, path, "reason");
    out.time_ms = non_negative(s, path, "time_ms");
    if (out.disposition == Disposition::kOk && !(out.time_ms > 0.0)) {
      fail(json_path::join(path, "time_ms"), "a stage that ran ok needs a time > 0");
    }
    return out;
  }

  ReportLadder read(Json const& root) const {
    object(root, "",
           {"gpu", "driver", "cuda_runtime", "cublas", "gemmtune", "problem", "cublas_ms",
            "cublaslt_ms", "timing", "stages"});
    ReportLadder out;
    out.source = source();
    out.gpu = text(root, "", "gpu", kMaxText);
    out.provenance = {{"driver", text(root, "", "driver", kMaxText)},
                      {"CUDA runtime", text(root, "", "cuda_runtime", kMaxText)},
                      {"cuBLAS", text(root, "", "cublas", kMaxText)},
                      {"gemmtune", text(root, "", "gemmtune", kMaxText)}};
    out.problem = problem(root);
    out.cublas_ms = positive(root, "", "cublas_ms");
    out.cublaslt_ms = positive(root, "", "cublaslt_ms");
    Json const& timing = member(root, "", "timing", "an object");
    if (!timing.is_object()) expected("timing", "an object", timing);
    if (auto it = timing.find("protocol"); it != timing.end()) {
      if (!it->is_string()) expected("timing.protocol", "a string", *it);
      try {
        out.protocol = to_string(parse_timing_protocol(it->get<std::string>()));
      } catch (Error const& e) {
        fail("timing.protocol", e.what());
      }
    }
    Json const& stages = member(root, "", "stages", "an array");
    if (!stages.is_array() || stages.empty() || stages.size() > kMaxStages) {
      expected("stages", "an array of 1 to " + std::to_string(kMaxStages) + " stages", stages);
    }
    for (std::size_t i = 0; i < stages.size(); ++i) {
      out.stages.push_back(stage(stages[i], json_path::index("stages", i)));
    }
    return out;
  }
};

}  // namespace

ReportLadder parse_ladder_json(std::string_view text, std::string const& source) {
  Json root;
  try {
    root = parse_checked_json<Json>(text, kMaxLadderDepth, source, " (a ladder file needs 3)",
                                    kMaxLadderKeys);
  } catch (Json::exception const& e) {
    throw Error(source + ": not valid JSON: " + e.what());
  }
  return LadderReader(source).read(root);
}

ReportLadder read_ladder_file(std::filesystem::path const& path) {
  return parse_ladder_json(read_capped_file(path, kMaxLadderFileBytes, "ladder result",
                                            "the JSON of gemmtune ladder --json-out"),
                           path.string());
}

}  // namespace gemmtune
