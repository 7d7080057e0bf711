// Text forms of Precision and Layout.
#include "src/core/precision.hpp"

#include <algorithm>
#include <cctype>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::kFP32: return "fp32";
    case Precision::kTF32: return "tf32";
    case Precision::kFP16: return "fp16";
    case Precision::kBF16: return "bf16";
    case Precision::kE4M3: return "e4m3";
    case Precision::kE4M3Row: return "e4m3-row";
    case Precision::kE4M3Blk: return "e4m3-blk";
    case Precision::kE5M2: return "e5m2";
    case Precision::kE5M2Row: return "e5m2-row";
    case Precision::kE5M2Blk: return "e5m2-blk";
  }
  return "?";
}

std::string_view to_string(Layout l) {
  switch (l) {
    case Layout::kNN: return "NN";
    case Layout::kNT: return "NT";
    case Layout::kTN: return "TN";
    case Layout::kTT: return "TT";
  }
  return "?";
}

Precision parse_precision(std::string_view text) {
  std::string const t = lower(text);
  for (Precision p : kAllPrecisions) {
    if (t == to_string(p)) return p;
  }
  throw UsageError("bad precision '" + std::string(text) + "': expected " + precision_names());
}

Layout parse_layout(std::string_view text) {
  std::string const t = lower(text);
  for (Layout l : kAllLayouts) {
    if (t == lower(to_string(l))) return l;
  }
  throw UsageError("bad layout '" + std::string(text) + "': expected NN, NT, TN or TT");
}

int input_bytes(Precision p) {
  switch (p) {
    case Precision::kFP32:
    case Precision::kTF32: return 4;
    case Precision::kFP16:
    case Precision::kBF16: return 2;
    default: return 1;  // the FP8 precisions
  }
}

int output_bytes(Precision p) { return input_bytes(output_precision(p)); }

Precision output_precision(Precision p) { return is_fp8(p) ? Precision::kBF16 : p; }

bool is_fp8(Precision p) {
  Precision const s = fp8_scaling(p);
  return s == Precision::kE4M3 || s == Precision::kE4M3Row || s == Precision::kE4M3Blk;
}

bool row_scaled(Precision p) { return fp8_scaling(p) == Precision::kE4M3Row; }

bool block_scaled(Precision p) { return fp8_scaling(p) == Precision::kE4M3Blk; }

bool a_is_e5m2(Precision p) {
  return p == Precision::kE5M2 || p == Precision::kE5M2Row || p == Precision::kE5M2Blk;
}

Precision b_storage_precision(Precision p) { return a_is_e5m2(p) ? Precision::kE4M3 : p; }

Precision fp8_scaling(Precision p) {
  switch (p) {
    case Precision::kE5M2: return Precision::kE4M3;
    case Precision::kE5M2Row: return Precision::kE4M3Row;
    case Precision::kE5M2Blk: return Precision::kE4M3Blk;
    default: return p;
  }
}

std::int64_t scale_blocks(std::int64_t extent) { return (extent + kScaleBlock - 1) / kScaleBlock; }

std::int64_t block_scale_a_index(std::int64_t m, std::int64_t i, std::int64_t kb) {
  return kb * m + i;
}

std::int64_t block_scale_b_stride(std::int64_t k) { return (scale_blocks(k) + 3) / 4 * 4; }

std::int64_t block_scale_b_index(std::int64_t k, std::int64_t j, std::int64_t kb) {
  return j / kScaleBlock * block_scale_b_stride(k) + kb;
}

std::int64_t scale_a_count(Precision p, std::int64_t m, std::int64_t k) {
  if (!is_fp8(p)) return 0;
  if (row_scaled(p)) return m;
  return block_scaled(p) ? m * scale_blocks(k) : 1;
}

std::int64_t scale_b_count(Precision p, std::int64_t n, std::int64_t k) {
  if (!is_fp8(p)) return 0;
  if (row_scaled(p)) return n;
  return block_scaled(p) ? scale_blocks(n) * block_scale_b_stride(k) : 1;
}

std::string precision_names() {
  std::string out;
  for (Precision p : kAllPrecisions) {
    if (!out.empty()) out += p == kAllPrecisions.back() ? " or " : ", ";
    out += to_string(p);
  }
  return out;
}

bool a_transposed(Layout l) { return l == Layout::kTN || l == Layout::kTT; }
bool b_transposed(Layout l) { return l == Layout::kNT || l == Layout::kTT; }

}  // namespace gemmtune
