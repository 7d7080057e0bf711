// Hugging Face decoder configs to GEMM shapes, token sweeps and the shapes file.
#include "tuner/shapes/model_shapes.hpp"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/core/fixed_text.hpp"
#include "tuner/shapes/shape_sweep.hpp"

namespace gemmtune {
namespace {

using Json = nlohmann::json;

/// Model types whose MLP is two plain projections (no gate): GPT-2 and its descendants.
constexpr std::string_view kPlainMlpTypes[] = {"gpt2",   "gpt_bigcode", "gpt_neox", "gptj",
                                               "opt",    "bloom",       "falcon",   "phi",
                                               "starcoder2"};

/// Keys that mark a mixture-of-experts config: its expert GEMMs are grouped, not plain linears.
constexpr std::string_view kExpertKeys[] = {"num_local_experts", "num_experts", "n_routed_experts",
                                            "moe_intermediate_size"};

/// Reads one config's fields, naming the file and key in every error.
class ConfigReader {
 public:
  ConfigReader(Json const& j, std::string_view source) : j_(j), source_(source) {}

  /// The first of `keys` that is present and not null, as a positive integer; 0 when none is.
  std::int64_t optional_int(std::initializer_list<std::string_view> keys) const {
    for (std::string_view key : keys) {
      auto it = j_.find(std::string(key));
      if (it == j_.end() || it->is_null()) continue;
      bool const integral = it->is_number_integer() || it->is_number_unsigned();
      if (!integral || it->get<std::int64_t>() < 1 || it->get<std::int64_t>() > kMaxDim) {
        fail(key, "a positive integer of at most " + std::to_string(kMaxDim) + ", got " +
                      it->dump());
      }
      return it->get<std::int64_t>();
    }
    return 0;
  }

  std::int64_t required_int(std::initializer_list<std::string_view> keys) const {
    std::int64_t const v = optional_int(keys);
    if (v == 0) {
      std::string names;
      for (std::string_view k : keys) names += (names.empty() ? "" : " or ") + std::string(k);
      throw Error(std::string(source_) + ": " + names +
                  ": expected a positive integer (absent; is this a decoder model's config.json?)");
    }
    return v;
  }

  [[noreturn]] void fail(std::string_view key, std::string const& what) const {
    throw Error(std::string(source_) + ": " + std::string(key) + ": expected " + what);
  }

 private:
  Json const& j_;
  std::string_view source_;
};

std::int64_t divided(std::int64_t value, int by, std::string const& what) {
  if (value % by != 0) {
    throw Error("tensor parallel degree " + std::to_string(by) + " does not divide " + what +
                " (" + std::to_string(value) + ")");
  }
  return value / by;
}

}  // namespace

DecoderDims read_decoder_config(std::string_view json_text, std::string_view source) {
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (Json::parse_error const& e) {
    throw Error(std::string(source) + ": not JSON (" + e.what() + ")");
  }
  if (!root.is_object()) throw Error(std::string(source) + ": expected a JSON object");
  std::string model_type = root.value("model_type", std::string());
  Json const* text = &root;
  if (auto it = root.find("text_config"); it != root.end() && it->is_object()) {
    text = &*it;
    if (auto t = it->find("model_type"); t != it->end() && t->is_string()) {
      model_type = t->get<std::string>();
    }
  }
  for (std::string_view key : kExpertKeys) {
    auto it = text->find(std::string(key));
    if (it != text->end() && !it->is_null() && !(it->is_number() && it->get<double>() == 0)) {
      throw Error(std::string(source) + ": " + std::string(key) +
                  ": a mixture-of-experts model; its expert GEMMs are grouped and are not laid "
                  "out here (give its dense layers as a shapes file)");
    }
  }
  ConfigReader const r(*text, source);
  DecoderDims d;
  d.model_type = model_type;
  d.hidden = r.required_int({"hidden_size", "n_embd", "d_model"});
  d.heads = r.required_int({"num_attention_heads", "n_head"});
  d.layers = r.required_int({"num_hidden_layers", "n_layer"});
  d.vocab = r.required_int({"vocab_size"});
  d.gated_mlp = std::find(std::begin(kPlainMlpTypes), std::end(kPlainMlpTypes), model_type) ==
                std::end(kPlainMlpTypes);
  d.intermediate = r.optional_int({"intermediate_size", "n_inner", "ffn_dim"});
  if (d.intermediate == 0) {
    // GPT-2 leaves n_inner null for 4·n_embd; a gated model must say.
    if (d.gated_mlp) r.required_int({"intermediate_size"});
    d.intermediate = 4 * d.hidden;
  }
  d.kv_heads = r.optional_int({"num_key_value_heads", "multi_query_group_num"});
  if (d.kv_heads == 0) d.kv_heads = d.heads;
  if (d.heads % d.kv_heads != 0) {
    r.fail("num_key_value_heads", "a divisor of num_attention_heads (" +
                                      std::to_string(d.heads) + "), got " +
                                      std::to_string(d.kv_heads));
  }
  d.head_dim = r.optional_int({"head_dim"});
  if (d.head_dim == 0) {
    if (d.hidden % d.heads != 0) {
      r.fail("head_dim", "a value (hidden size " + std::to_string(d.hidden) +
                             " is not a multiple of the " + std::to_string(d.heads) + " heads)");
    }
    d.head_dim = d.hidden / d.heads;
  }
  return d;
}

std::vector<ModelGemm> decoder_gemms(DecoderDims const& d, ModelShapeOptions const& o) {
  int const t = o.tensor_parallel;
  if (t < 1) throw UsageError("bad tensor parallel degree " + std::to_string(t) + ": expected ≥ 1");
  std::int64_t const q = divided(d.heads, t, "the attention heads") * d.head_dim;
  // Fewer KV heads than ranks: each rank keeps a replica of one (vLLM's rule).
  std::int64_t kv_heads = d.kv_heads >= t ? divided(d.kv_heads, t, "the KV heads") : 1;
  if (d.kv_heads < t && t % d.kv_heads != 0) {
    throw Error("tensor parallel degree " + std::to_string(t) + " is not a multiple of the " +
                std::to_string(d.kv_heads) + " KV heads");
  }
  std::int64_t const kv = kv_heads * d.head_dim;
  std::int64_t const ffn = divided(d.intermediate, t, "the intermediate size");
  std::int64_t const h = d.hidden;
  std::int64_t const n = d.layers;
  std::vector<ModelGemm> out;
  if (o.fused) {
    out.push_back({"qkv_proj", q + 2 * kv, h, n});
  } else {
    out.push_back({"q_proj", q, h, n});
    out.push_back({"k_proj", kv, h, n});
    out.push_back({"v_proj", kv, h, n});
  }
  out.push_back({"o_proj", h, q, n});
  if (d.gated_mlp) {
    if (o.fused) {
      out.push_back({"gate_up_proj", 2 * ffn, h, n});
    } else {
      out.push_back({"gate_proj", ffn, h, n});
      out.push_back({"up_proj", ffn, h, n});
    }
    out.push_back({"down_proj", h, ffn, n});
  } else {
    out.push_back({"fc_in", ffn, h, n});
    out.push_back({"fc_out", h, ffn, n});
  }
  // The vocabulary is split by columns and padded to a whole share per rank.
  if (o.lm_head) out.push_back({"lm_head", (d.vocab + t - 1) / t, h, 1});
  for (ModelGemm const& g : out) {
    if (g.n > kMaxDim || g.k > kMaxDim) {
      throw Error(g.name + ": " + std::to_string(g.n) + "x" + std::to_string(g.k) +
                  " is larger than a problem may be (" + std::to_string(kMaxDim) + ")");
    }
  }
  return out;
}

std::vector<std::int64_t> parse_token_counts(std::string_view text) {
  return parse_sizes(text, "token count");
}

std::vector<ModelShape> model_shapes(std::vector<ModelGemm> const& gemms,
                                     std::vector<std::int64_t> const& tokens, Precision precision,
                                     Layout layout) {
  std::vector<ModelShape> out;
  for (std::int64_t m : tokens) {
    std::vector<ModelShape> at;
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> index;
    double total = 0.0;
    for (ModelGemm const& g : gemms) {
      double const flops = 2.0 * static_cast<double>(m) * static_cast<double>(g.n) *
                           static_cast<double>(g.k) * static_cast<double>(g.calls);
      total += flops;
      auto const [it, fresh] = index.try_emplace({g.n, g.k}, at.size());
      if (fresh) {
        ModelShape s;
        s.problem.m = m;
        s.problem.n = g.n;
        s.problem.k = g.k;
        s.problem.precision = precision;
        s.problem.layout = layout;
        at.push_back(s);
      }
      ModelShape& s = at[it->second];
      s.layers.push_back(g.name);
      s.calls += g.calls;
      s.flop_share += flops;  // divided by the total below
    }
    for (ModelShape& s : at) s.flop_share = total > 0 ? s.flop_share / total : 0.0;
    std::stable_sort(at.begin(), at.end(), [](ModelShape const& a, ModelShape const& b) {
      return a.flop_share > b.flop_share;
    });
    out.insert(out.end(), at.begin(), at.end());
  }
  return out;
}

std::string format_shapes_file(std::vector<ModelShape> const& shapes,
                               std::vector<std::string> const& header, std::string_view per,
                               std::string_view share_of) {
  std::string out;
  for (std::string const& line : header) out += "# " + line + "\n";
  for (ModelShape const& s : shapes) {
    std::string layers;
    for (std::string const& l : s.layers) layers += (layers.empty() ? "" : ", ") + l;
    out += std::to_string(s.problem.m) + " " + std::to_string(s.problem.n) + " " +
           std::to_string(s.problem.k) + " " + std::string(to_string(s.problem.precision)) + " " +
           std::string(to_string(s.problem.layout)) + "  # " + layers + ": " +
           std::to_string(s.calls) + (s.calls == 1 ? " call" : " calls") + " per " +
           std::string(per) + ", " + fixed(100.0 * s.flop_share, 1) + " % of " +
           std::string(share_of) + "\n";
  }
  return out;
}

}  // namespace gemmtune
