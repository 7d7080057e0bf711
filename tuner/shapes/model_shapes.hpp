// The GEMM shapes of a model: a decoder's dimensions read from its Hugging Face config.json,
// the projections of one forward pass they fix (Q/K/V/O, gate/up/down, LM head; tensor
// parallelism and fused projections as options), token-count sweeps for M, and the shapes file
// a search reads. Plain data and JSON: no GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/precision.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// A decoder-only transformer's dimensions, as its config.json names them.
struct DecoderDims {
  std::string model_type;         ///< "llama", "mistral", "qwen2", "gpt2", ... ("" if absent)
  std::int64_t hidden = 0;        ///< hidden_size (n_embd)
  std::int64_t intermediate = 0;  ///< intermediate_size (n_inner, default 4·hidden for GPT-2)
  std::int64_t heads = 0;         ///< num_attention_heads (n_head)
  std::int64_t kv_heads = 0;      ///< num_key_value_heads (default: heads)
  std::int64_t head_dim = 0;      ///< head_dim (default: hidden / heads)
  std::int64_t vocab = 0;         ///< vocab_size
  std::int64_t layers = 0;        ///< num_hidden_layers (n_layer)
  /// Whether the MLP is gated (gate and up projections, as Llama's) or a plain two-layer MLP
  /// (GPT-2's c_fc and c_proj).
  bool gated_mlp = true;
};

/// Reads a decoder's dimensions from the text of a Hugging Face config.json (a "text_config"
/// object inside, as multimodal models nest it, is read instead of the top level). Throws
/// Error "<source>: <key>: expected ..., got ..." for a missing or bad field, and for a model
/// this reader cannot lay out (mixture-of-experts configs: their expert GEMMs are grouped).
DecoderDims read_decoder_config(std::string_view json_text, std::string_view source);

/// What to derive from the dimensions.
struct ModelShapeOptions {
  int tensor_parallel = 1;  ///< ranks the column- and row-parallel layers are split over
  /// One GEMM for Q, K and V together and one for gate and up, as vLLM and TensorRT-LLM run
  /// them; separate GEMMs otherwise.
  bool fused = false;
  bool lm_head = true;      ///< include the vocabulary projection
};

/// One linear layer of a forward pass: y = x·Wᵀ with W of N×K, run `calls` times per forward.
struct ModelGemm {
  std::string name;         ///< "q_proj", "qkv_proj", "down_proj", "lm_head", ...
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t calls = 0;   ///< per forward pass (the layer count, 1 for the LM head)
};

/// The layers of one forward pass on one tensor-parallel rank. Throws Error when the degree
/// does not divide the dimensions it splits (heads, KV heads, intermediate, vocabulary).
std::vector<ModelGemm> decoder_gemms(DecoderDims const& dims, ModelShapeOptions const& options);

/// Token counts (the M of every layer): a comma list of integers and sweeps, "A:B:pow2" (A,
/// 2A, 4A, … up to B) or "A:B:S" (A, A+S, … up to B). Each between 1 and 16777216; sorted,
/// duplicates dropped. Throws UsageError naming the bad item.
std::vector<std::int64_t> parse_token_counts(std::string_view text);

/// One line of a model's shapes file.
struct ModelShape {
  Problem problem;
  std::vector<std::string> layers;  ///< the layers with this (N, K), in forward order
  std::int64_t calls = 0;           ///< per forward pass at this token count, summed
  /// Share of the forward pass's GEMM FLOPs at this token count (0–1).
  double flop_share = 0.0;
};

/// Every (token count, layer) as a problem of `precision` and `layout` (NT for torch's
/// nn.Linear: the weight is N×K, row-major); layers with the same (N, K) share a line.
/// Ordered by token count, then by FLOP share, heaviest first.
std::vector<ModelShape> model_shapes(std::vector<ModelGemm> const& gemms,
                                     std::vector<std::int64_t> const& tokens, Precision precision,
                                     Layout layout);

/// The shapes file: `header` lines as comments, then "M N K precision layout  # layers, calls
/// per `per`, share of `share_of`" per shape, readable by `search --shapes-file`.
std::string format_shapes_file(std::vector<ModelShape> const& shapes,
                               std::vector<std::string> const& header,
                               std::string_view per = "forward",
                               std::string_view share_of = "its GEMM FLOPs at this token count");

}  // namespace gemmtune
