// `gemmtune shapes`: the shapes file of a model, from its Hugging Face config.json and a token
// range, heaviest GEMMs first, for `search --shapes-file`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "src/core/error.hpp"
#include "src/core/file_output.hpp"
#include "src/core/fixed_text.hpp"
#include "tuner/shapes/model_shapes.hpp"

namespace gemmtune {
namespace {

/// A config.json is a few kB; anything this large is not one.
constexpr std::uintmax_t kMaxConfigBytes = std::uintmax_t{16} << 20;

struct ShapesArgs {
  std::string hf_config;
  std::string tokens = "1:16384:pow2";
  int tensor_parallel = 1;
  bool fused = false;
  bool no_lm_head = false;
  std::string precision = "bf16";
  std::string layout = "NT";
  std::string out = "-";
};

std::string read_config(std::string const& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError("cannot read config '" + path + "': it is a directory");
  }
  auto const size = std::filesystem::file_size(path, ec);
  if (ec) throw UsageError("cannot read config '" + path + "': " + ec.message());
  if (size > kMaxConfigBytes) {
    throw UsageError("config '" + path + "' is " + std::to_string(size) +
                     " bytes; a config.json is at most " + std::to_string(kMaxConfigBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read config '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void run_shapes(ShapesArgs const& a, AppContext& ctx) {
  if (a.hf_config.empty()) throw UsageError("give the model: --hf-config config.json");
  Precision const precision = parse_precision(a.precision);
  Layout const layout = parse_layout(a.layout);
  std::vector<std::int64_t> const tokens = parse_token_counts(a.tokens);
  DecoderDims const dims = read_decoder_config(read_config(a.hf_config), a.hf_config);
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
                     {"tokens", tokens},
                     {"shapes", nlohmann::json::array()}};
    for (ModelShape const& s : shapes) {
      j["shapes"].push_back({{"m", s.problem.m},
                             {"n", s.problem.n},
                             {"k", s.problem.k},
                             {"precision", to_string(s.problem.precision)},
                             {"layout", to_string(s.problem.layout)},
                             {"layers", s.layers},
                             {"calls", s.calls},
                             {"flop_share", s.flop_share}});
    }
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
  if (a.out == "-") {
    std::cout << text;
  } else {
    write_file_safely(a.out, text, "shapes file");
    if (!ctx.options.quiet) {
      std::cerr << "wrote " << a.out << ": " << shapes.size() << " shapes (" << gemms.size()
                << " layers × " << tokens.size() << " token counts, layers of one size sharing "
                << "a line)" << std::endl;
    }
  }
}

}  // namespace

void setup_shapes(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<ShapesArgs>();
  CLI::App* sub = app.add_subcommand(
      "shapes", "A shapes file of a model's GEMMs from its Hugging Face config.json");
  sub->add_option("--hf-config", a->hf_config, "The model's config.json (a decoder: Llama, "
                                               "Mistral, Qwen, Gemma, GPT-2, ...)");
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
