// Model shapes: config.json fields, the projections of a forward pass with tensor parallelism
// and fusion, token sweeps and M ranges, and the shapes file.
#include "tuner/shapes/model_shapes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "src/core/error.hpp"
#include "tuner/shapes/shape_sweep.hpp"

namespace gemmtune {
namespace {

// The dimensions of Llama-3-8B's published config (grouped-query attention: 8 KV heads).
constexpr char kLlama3[] = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
  "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
  "num_hidden_layers": 32, "vocab_size": 128256, "rms_norm_eps": 1e-05, "head_dim": null })";

// GPT-2 small: n_* names, n_inner null (4·n_embd), a plain MLP.
constexpr char kGpt2[] = R"({"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12,
  "n_inner": null, "vocab_size": 50257})";

std::string error_of(std::string const& json) {
  try {
    read_decoder_config(json, "config.json");
  } catch (Error const& e) {
    return e.what();
  }
  return "";
}

TEST(ModelShapes, ReadsALlamaConfig) {
  DecoderDims const d = read_decoder_config(kLlama3, "config.json");
  EXPECT_EQ(d.model_type, "llama");
  EXPECT_EQ(d.hidden, 4096);
  EXPECT_EQ(d.intermediate, 14336);
  EXPECT_EQ(d.heads, 32);
  EXPECT_EQ(d.kv_heads, 8);
  EXPECT_EQ(d.head_dim, 128);  // null: hidden / heads
  EXPECT_EQ(d.layers, 32);
  EXPECT_EQ(d.vocab, 128256);
  EXPECT_TRUE(d.gated_mlp);
}

TEST(ModelShapes, ReadsGpt2NamesAndANestedTextConfig) {
  DecoderDims const g = read_decoder_config(kGpt2, "config.json");
  EXPECT_EQ(g.hidden, 768);
  EXPECT_EQ(g.intermediate, 3072);
  EXPECT_EQ(g.kv_heads, 12);
  EXPECT_FALSE(g.gated_mlp);
  DecoderDims const nested = read_decoder_config(
      R"({"model_type": "llava", "text_config": {"model_type": "mistral", "hidden_size": 4096,
          "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
          "num_hidden_layers": 32, "vocab_size": 32064, "head_dim": 128}})",
      "config.json");
  EXPECT_EQ(nested.model_type, "mistral");
  EXPECT_EQ(nested.vocab, 32064);
}

TEST(ModelShapes, BadConfigsNameTheFileAndField) {
  EXPECT_NE(error_of("{").find("config.json: not JSON"), std::string::npos);
  EXPECT_NE(error_of("[1]").find("config.json: expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 4096})")
                .find("config.json: num_attention_heads or n_head: expected a positive integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": "4096", "num_attention_heads": 32})")
                .find("config.json: hidden_size: expected a positive integer of at most "
                      "16777216, got \"4096\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 4096.5, "num_attention_heads": 32})")
                .find("hidden_size: expected a positive integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2,
                        "vocab_size": 10, "intermediate_size": 11008, "num_key_value_heads": 5})")
                .find("num_key_value_heads: expected a divisor of num_attention_heads (32), got 5"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                        "num_hidden_layers": 2, "vocab_size": 10})")
                .find("intermediate_size: expected a positive integer (absent"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model_type": "mixtral", "hidden_size": 4096, "num_attention_heads": 32,
                        "num_hidden_layers": 32, "vocab_size": 32000, "intermediate_size": 14336,
                        "num_local_experts": 8})")
                .find("num_local_experts: a mixture-of-experts model"),
            std::string::npos);
}

TEST(ModelShapes, TheProjectionsOfAForwardPass) {
  DecoderDims const d = read_decoder_config(kLlama3, "config.json");
  std::vector<ModelGemm> const g = decoder_gemms(d, {});
  ASSERT_EQ(g.size(), 8u);
  EXPECT_EQ(g[0].name, "q_proj");
  EXPECT_EQ(g[0].n, 4096);
  EXPECT_EQ(g[0].k, 4096);
  EXPECT_EQ(g[1].name, "k_proj");
  EXPECT_EQ(g[1].n, 1024);  // 8 KV heads of 128
  EXPECT_EQ(g[3].name, "o_proj");
  EXPECT_EQ(g[6].name, "down_proj");
  EXPECT_EQ(g[6].n, 4096);
  EXPECT_EQ(g[6].k, 14336);
  EXPECT_EQ(g[6].calls, 32);
  EXPECT_EQ(g[7].name, "lm_head");
  EXPECT_EQ(g[7].n, 128256);
  EXPECT_EQ(g[7].calls, 1);

  // Tensor parallel 4, fused: column-parallel N and row-parallel K split over the ranks.
  std::vector<ModelGemm> const f = decoder_gemms(d, {4, true, true});
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].name, "qkv_proj");
  EXPECT_EQ(f[0].n, (4096 + 2 * 1024) / 4);
  EXPECT_EQ(f[1].name, "o_proj");
  EXPECT_EQ(f[1].k, 1024);
  EXPECT_EQ(f[2].name, "gate_up_proj");
  EXPECT_EQ(f[2].n, 2 * 14336 / 4);
  EXPECT_EQ(f[3].k, 14336 / 4);
  EXPECT_EQ(f[4].n, 128256 / 4);

  // More ranks than KV heads: each rank keeps one KV head.
  EXPECT_EQ(decoder_gemms(d, {16, false, false})[1].n, 128);
  EXPECT_THROW(decoder_gemms(d, {3, false, false}), Error);  // 32 heads over 3 ranks

  std::vector<ModelGemm> const p = decoder_gemms(read_decoder_config(kGpt2, "c"), {1, false, false});
  ASSERT_EQ(p.size(), 6u);  // q, k, v, o, fc_in, fc_out
  EXPECT_EQ(p[4].name, "fc_in");
  EXPECT_EQ(p[4].n, 3072);
}

TEST(ModelShapes, TokenCountsAndSweeps) {
  EXPECT_EQ(parse_token_counts("1,16,128"), (std::vector<std::int64_t>{1, 16, 128}));
  EXPECT_EQ(parse_token_counts("1:16:pow2"), (std::vector<std::int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_token_counts("3:20:pow2,4"), (std::vector<std::int64_t>{3, 4, 6, 12}));
  EXPECT_EQ(parse_token_counts("100:400:100,200"),
            (std::vector<std::int64_t>{100, 200, 300, 400}));
  for (char const* bad : {"", "0", "1,,2", "a", "1.5", "8:4:pow2", "1:8", "1:8:0", "1:8:x",
                          "1:2:3:4", "16777217", "-4"}) {
    EXPECT_THROW(parse_token_counts(bad), UsageError) << bad;
  }
}

TEST(ShapeSweeps, MRangesParseAndOthersAreRefused) {
  RangeShape r;
  ASSERT_TRUE(parse_range_shape("1-16384x4096x4096", r));
  EXPECT_EQ(std::tie(r.m_lo, r.m_hi, r.n, r.k),
            std::make_tuple(std::int64_t{1}, std::int64_t{16384}, std::int64_t{4096},
                            std::int64_t{4096}));
  RangeShape untouched{7, 8, 9, 10};
  EXPECT_FALSE(parse_range_shape("128x4096x4096", untouched));
  EXPECT_EQ(untouched.m_lo, 7);
  EXPECT_THROW(parse_range_shape("16-1x64x64", r), UsageError);        // inverted
  EXPECT_THROW(parse_range_shape("8-8x64x64", r), UsageError);         // empty
  EXPECT_THROW(parse_range_shape("1-64x1-64x64", r), UsageError);      // N range
  EXPECT_THROW(parse_range_shape("1-64x64", r), UsageError);           // two dimensions
  EXPECT_THROW(parse_range_shape("0-64x64x64", r), UsageError);        // out of bounds
  EXPECT_THROW(parse_range_shape("1-99999999x64x64", r), UsageError);
  EXPECT_THROW(parse_range_shape("a-64x64x64", r), UsageError);
  // A leading '-' is a negative size, for the shape parser to refuse: no range.
  EXPECT_FALSE(parse_range_shape("-1x2x3", r));
  EXPECT_FALSE(parse_range_shape("4x-1x3", r));
  try {
    parse_range_shape("1-64x64x1-2", r);
  } catch (UsageError const& e) {
    EXPECT_NE(std::string(e.what()).find("only M may be a range"), std::string::npos) << e.what();
  }
}

TEST(ModelShapes, ShapeSweepsExpandMSlowest) {
  EXPECT_EQ(expand_shape_sweep("4096x4096x4096"), (std::vector<std::string>{"4096x4096x4096"}));
  EXPECT_EQ(expand_shape_sweep("1:4:pow2x64x32:64:32"),
            (std::vector<std::string>{"1x64x32", "1x64x64", "2x64x32", "2x64x64", "4x64x32",
                                      "4x64x64"}));
  EXPECT_EQ(expand_shape_sweep("1:2:pow2,7x8x8").size(), 3u);
  EXPECT_THROW(expand_shape_sweep("1:4:pow2x64"), UsageError);
  EXPECT_THROW(expand_shape_sweep("1:4096:1x1:2:1x1:2:1"), UsageError);  // 16384 problems
  try {
    expand_shape_sweep("1:4:powx8x8");
    FAIL();
  } catch (UsageError const& e) {
    EXPECT_NE(std::string(e.what()).find("bad size '1:4:pow'"), std::string::npos) << e.what();
  }
}

TEST(ModelShapes, ShapesFileSharesLinesAndOrdersByFlops) {
  DecoderDims const d = read_decoder_config(kLlama3, "config.json");
  std::vector<ModelShape> const s =
      model_shapes(decoder_gemms(d, {}), {1, 4096}, Precision::kBF16, Layout::kNT);
  // Per token count: q and o share 4096x4096, k and v 1024x4096, gate and up 14336x4096.
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[0].problem.m, 1);
  EXPECT_EQ(s[0].layers, (std::vector<std::string>{"gate_proj", "up_proj"}));
  EXPECT_EQ(s[0].calls, 64);
  double total = 0;
  for (int i = 0; i < 5; ++i) total += s[static_cast<std::size_t>(i)].flop_share;
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_GE(s[0].flop_share, s[1].flop_share);
  EXPECT_EQ(s[5].problem.m, 4096);
  std::string const text = format_shapes_file(s, {"from config.json"});
  EXPECT_EQ(text.rfind("# from config.json\n1 14336 4096 bf16 NT  # gate_proj, up_proj: 64 calls "
                       "per forward, ",
                       0),
            0u)
      << text;
}

}  // namespace
}  // namespace gemmtune
