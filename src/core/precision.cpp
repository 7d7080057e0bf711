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
    case Precision::kE4M3:
    case Precision::kE4M3Row: return 1;
  }
  return 4;
}

int output_bytes(Precision p) { return input_bytes(output_precision(p)); }

Precision output_precision(Precision p) { return is_fp8(p) ? Precision::kBF16 : p; }

bool is_fp8(Precision p) { return p == Precision::kE4M3 || p == Precision::kE4M3Row; }

bool row_scaled(Precision p) { return p == Precision::kE4M3Row; }

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
