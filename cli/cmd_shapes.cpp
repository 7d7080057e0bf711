// `gemmtune shapes`: the shapes file of a model, from its Hugging Face config.json and a token
// range, or from the GEMMs PyTorch ran (a TunableOp record, a profiler trace), heaviest first,
// for `search --shapes-file`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "src/core/error.hpp"
#include "src/core/file_output.hpp"
#include "tuner/shapes/model_shapes.hpp"
#include "tuner/shapes/profiler_shapes.hpp"
#include "tuner/shapes/tunableop_shapes.hpp"

namespace gemmtune {
namespace {

/// A config.json is a few kB, a TunableOp record or a profiler trace a few MB; anything this
/// large is none of them.
constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{64} << 20;

struct ShapesArgs {
  std::string hf_config;
  std::string tunableop;
  std::string torch_trace;
  std::string tokens = "1:16384:pow2";
  int tensor_parallel = 1;
  bool fused = false;
  bool no_lm_head = false;
  std::string precision = "bf16";
  std::string layout = "NT";
  std::string out = "-";
};

std::string read_input(std::string const& path, char const* what) {
  std::string const named = std::string(what) + " '" + path + "'";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError("cannot read " + named + ": it is a directory");
  }
  auto const size = std::filesystem::file_size(path, ec);
  if (ec) throw UsageError("cannot read " + named + ": " + ec.message());
  if (size > kMaxInputBytes) {
    throw UsageError(named + " is " + std::to_string(size) + " bytes; more than " +
                     std::to_string(kMaxInputBytes) + " is no " + what);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + named);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Recorded GEMMs as shapes-file lines, heaviest first: each line's flop_share holds its weight
/// (recorded time, or FLOPs × calls) on the way in and its share of the total on the way out.
std::vector<ModelShape> heaviest_first(std::vector<ModelShape> shapes) {
  double total = 0.0;
  for (ModelShape const& s : shapes) total += s.flop_share;
  for (ModelShape& s : shapes) s.flop_share = total > 0 ? s.flop_share / total : 0.0;
  std::stable_sort(shapes.begin(), shapes.end(), [](ModelShape const& a, ModelShape const& b) {
    return a.flop_share > b.flop_share;
  });
  return shapes;
}

std::string skipped_text(std::vector<std::pair<std::string, std::int64_t>> const& skipped) {
  std::string out;
  for (auto const& [what, n] : skipped) out += (out.empty() ? "" : ", ") + what + " ×" + std::to_string(n);
  return out;
}

void write_shapes(ShapesArgs const& a, AppContext& ctx, std::string const& text,
                  std::string const& summary) {
  if (a.out == "-") {
    std::cout << text;
  } else {
    write_file_safely(a.out, text, "shapes file");
    if (!ctx.options.quiet) std::cerr << "wrote " << a.out << ": " << summary << std::endl;
  }
}

nlohmann::json shapes_json(std::vector<ModelShape> const& shapes) {
  nlohmann::json list = nlohmann::json::array();
  for (ModelShape const& s : shapes) {
    list.push_back({{"m", s.problem.m},
                    {"n", s.problem.n},
                    {"k", s.problem.k},
                    {"precision", to_string(s.problem.precision)},
                    {"layout", to_string(s.problem.layout)},
                    {"layers", s.layers},
                    {"calls", s.calls},
                    {"flop_share", s.flop_share}});
  }
  return list;
}

/// Writes the shapes of a record (TunableOp or a trace): `source_line` heads the file.
void write_recorded(ShapesArgs const& a, AppContext& ctx, std::string const& path,
                    std::vector<ModelShape> const& shapes,
                    std::vector<std::pair<std::string, std::int64_t>> const& skipped,
                    std::string const& source_line, std::string const& share_of) {
  std::string const left_out = skipped_text(skipped);
  if (shapes.empty()) {
    throw Error(path + ": no GEMM gemmtune tunes" +
                (left_out.empty() ? std::string() : " (skipped: " + left_out + ")"));
  }
  std::string text;
  if (ctx.options.json) {
    nlohmann::json skipped_json = nlohmann::json::array();
    for (auto const& [what, n] : skipped) skipped_json.push_back({{"what", what}, {"count", n}});
    text = nlohmann::json{{"source", path}, {"shapes", shapes_json(shapes)}, {"skipped", skipped_json}}
               .dump(2) +
           "\n";
  } else {
    std::vector<std::string> header{source_line};
    if (!left_out.empty()) header.push_back("not tuned by gemmtune, left out: " + left_out);
    text = format_shapes_file(shapes, header, "record", share_of);
  }
  write_shapes(a, ctx, text,
               std::to_string(shapes.size()) + " shapes" +
                   (left_out.empty() ? std::string() : "; left out: " + left_out));
}

void run_tunableop(ShapesArgs const& a, AppContext& ctx) {
  TunableOpShapes const r = read_tunableop_csv(read_input(a.tunableop, "TunableOp record"),
                                               a.tunableop);
  std::vector<ModelShape> shapes;
  for (RecordedGemm const& g : r.gemms) {
    shapes.push_back({g.problem, {g.op}, g.calls, g.problem.flops() * static_cast<double>(g.calls)});
  }
  write_recorded(a, ctx, a.tunableop, heaviest_first(shapes), r.skipped,
                 "GEMMs PyTorch's TunableOp recorded in " +
                     std::filesystem::path(a.tunableop).filename().string() +
                     " (gemmtune shapes); row-major M N K precision layout per line, float read "
                     "as fp32",
                 "the record's GEMM FLOPs");
}

void run_trace(ShapesArgs const& a, AppContext& ctx) {
  TraceShapes const t =
      read_profiler_trace(read_input(a.torch_trace, "profiler trace"), a.torch_trace);
  bool timed = false;
  for (TracedGemm const& g : t.gemms) timed = timed || g.duration_us > 0;
  std::vector<ModelShape> shapes;
  for (TracedGemm const& g : t.gemms) {
    double const weight = timed ? g.duration_us : g.problem.flops() * static_cast<double>(g.calls);
    shapes.push_back({g.problem, {g.op}, g.calls, weight});
  }
  write_recorded(a, ctx, a.torch_trace, heaviest_first(shapes), t.skipped,
                 "GEMMs of the PyTorch profiler trace " +
                     std::filesystem::path(a.torch_trace).filename().string() +
                     " (gemmtune shapes); row-major M N K precision layout per line",
                 timed ? "the trace's GEMM time" : "the trace's GEMM FLOPs (no durations)");
}

void run_shapes(ShapesArgs const& a, AppContext& ctx) {
  int const sources = !a.hf_config.empty() + !a.tunableop.empty() + !a.torch_trace.empty();
  if (sources > 1) {
    throw UsageError("--hf-config, --tunableop and --torch-trace are separate sources: give one");
  }
  if (!a.tunableop.empty()) {
    run_tunableop(a, ctx);
    return;
  }
  if (!a.torch_trace.empty()) {
    run_trace(a, ctx);
    return;
  }
  if (a.hf_config.empty()) {
    throw UsageError("give the model: --hf-config config.json (or --tunableop untuned.csv, "
                     "--torch-trace trace.json)");
  }
  Precision const precision = parse_precision(a.precision);
  Layout const layout = parse_layout(a.layout);
  std::vector<std::int64_t> const tokens = parse_token_counts(a.tokens);
  DecoderDims const dims = read_decoder_config(read_input(a.hf_config, "config"), a.hf_config);
  ModelShapeOptions options;
  options.tensor_parallel = a.tensor_parallel;
  options.fused = a.fused;
  options.lm_head = !a.no_lm_head;
  std::vector<ModelGemm> const gemms = decoder_gemms(dims, options);
  std::vector<ModelShape> const shapes = model_shapes(gemms, tokens, precision, layout);

  std::string text;
  if (ctx.options.json) {
    nlohmann::json j{{"config", a.hf_config},
                     {"model_type", dims.model_type},
                     {"tensor_parallel", a.tensor_parallel},
                     {"fused", a.fused},
                     {"tokens", tokens}};
    j["shapes"] = shapes_json(shapes);
    text = j.dump(2) + "\n";
  } else {
    std::string const model = dims.model_type.empty() ? "model" : dims.model_type + " model";
    text = format_shapes_file(
        shapes,
        {"Shapes of a " + model + " from " + std::filesystem::path(a.hf_config).filename().string() +
             " (gemmtune shapes): hidden " + std::to_string(dims.hidden) + ", intermediate " +
             std::to_string(dims.intermediate) + ", " + std::to_string(dims.heads) + " heads (" +
             std::to_string(dims.kv_heads) + " KV) of " + std::to_string(dims.head_dim) + ", " +
             std::to_string(dims.layers) + " layers, vocabulary " + std::to_string(dims.vocab),
         "tensor parallel " + std::to_string(a.tensor_parallel) + (a.fused ? ", fused QKV and gate/up" : "") +
             "; token counts " + a.tokens + "; M N K precision layout per line (NT: y = x·Wᵀ, W "
             "N×K as torch.nn.Linear stores it)"});
  }
  write_shapes(a, ctx, text,
               std::to_string(shapes.size()) + " shapes (" + std::to_string(gemms.size()) +
                   " layers × " + std::to_string(tokens.size()) +
                   " token counts, layers of one size sharing a line)");
}

}  // namespace

void setup_shapes(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ShapesArgs>();
  CLI::App* sub = app.add_subcommand(
      "shapes", "A shapes file of a model's GEMMs from its Hugging Face config.json, a TunableOp record or a profiler trace");
  sub->add_option("--hf-config", a->hf_config, "The model's config.json (a decoder: Llama, "
                                               "Mistral, Qwen, Gemma, GPT-2, ...)");
  sub->add_option("--tunableop", a->tunableop,
                  "Instead: the GEMMs PyTorch's TunableOp recorded (tunableop_untuned*.csv or a "
                  "results file)");
  sub->add_option("--torch-trace", a->torch_trace,
                  "Instead: the GEMMs of a PyTorch profiler trace (Chrome-trace JSON, "
                  "record_shapes=True)");
  sub->add_option("--tokens", a->tokens,
                  "Token counts M: a comma list of integers and sweeps A:B:pow2 or A:B:STEP")
      ->capture_default_str();
  sub->add_option("--tp", a->tensor_parallel, "Tensor-parallel degree (the shapes of one rank)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_flag("--fused", a->fused, "One GEMM for Q, K and V and one for gate and up");
  sub->add_flag("--no-lm-head", a->no_lm_head, "Leave out the vocabulary projection");
  sub->add_option("--precision", a->precision, "Precision written on every line")
      ->capture_default_str();
  sub->add_option("--layout", a->layout, "Layout written on every line")->capture_default_str();
  sub->add_option("--out,-o", a->out, "Output file ('-': stdout)")->capture_default_str();
  sub->callback([a, &ctx] { run_shapes(*a, ctx); });
}

}  // namespace gemmtune
