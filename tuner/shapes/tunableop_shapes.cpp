// TunableOp CSV signatures to row-major problems.
#include "tuner/shapes/tunableop_shapes.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "src/core/error.hpp"
#include "src/core/precision.hpp"

namespace gemmtune {
namespace {

/// The ops whose signature is one plain GEMM (a bias epilogue does not change the shape).
constexpr std::string_view kGemmOps[] = {"GemmTunableOp", "GemmAndBiasTunableOp"};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t const at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? s.npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool read_dim(std::string_view text, std::int64_t& v) {
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && v >= 1 && v <= kMaxDim;
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

TunableOpShapes read_tunableop_csv(std::string_view text, std::string_view source) {
  TunableOpShapes out;
  std::map<std::string, std::size_t> index;  // problem key → position in out.gemms
  std::map<std::string, std::int64_t> skipped;
  std::vector<std::string> skipped_order;
  int lineno = 0;
  for (std::string_view line : split(text, '\n')) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.rfind("Validator", 0) == 0) continue;
    auto fail = [&](std::string const& what) -> void {
      throw Error(std::string(source) + ":" + std::to_string(lineno) + ": " + what + " in '" +
                  std::string(line.substr(0, 120)) + "'");
    };
    std::vector<std::string_view> const fields = split(line, ',');
    if (fields.size() < 2) fail("expected OpSignature,ParamSignature");
    std::string_view const op_sig = fields[0];
    std::size_t const first = op_sig.find('_');
    std::size_t const last = op_sig.rfind('_');
    if (first == std::string_view::npos || first == last) {
      fail("expected an op signature such as GemmTunableOp_BFloat16_TN");
    }
    std::string_view const op = op_sig.substr(0, first);
    std::string_view const type = op_sig.substr(first + 1, last - first - 1);
    std::string_view const ab = op_sig.substr(last + 1);
    bool const gemm =
        std::find(std::begin(kGemmOps), std::end(kGemmOps), op) != std::end(kGemmOps);
    std::optional<Precision> precision;
    if (type == "float") precision = Precision::kFP32;
    if (type == "Half") precision = Precision::kFP16;
    if (type == "BFloat16") precision = Precision::kBF16;
    if (!gemm || !precision) {
      std::string const key = std::string(op) + " (" + std::string(type) + ")";
      if (skipped[key]++ == 0) skipped_order.push_back(key);
      continue;
    }
    std::vector<std::string_view> const p = split(fields[1], '_');
    bool const with_ld = p.size() == 8 && p[4] == "ld";
    if (p.size() != 4 && !with_ld) {
      fail("expected a parameter signature tn_M_N_K or tn_M_N_K_ld_LDA_LDB_LDC");
    }
    std::string_view const trans = p[0];
    bool const letters = trans.size() == 2 && (lower(trans[0]) == 'n' || lower(trans[0]) == 't') &&
                         (lower(trans[1]) == 'n' || lower(trans[1]) == 't');
    if (!letters) fail("expected the transposes nn, nt, tn or tt, got '" + std::string(trans) + "'");
    if (ab.size() != 2 || lower(ab[0]) != lower(trans[0]) || lower(ab[1]) != lower(trans[1])) {
      fail("the op's layout " + std::string(ab) + " and the parameters' " + std::string(trans) +
           " differ");
    }
    std::int64_t m = 0, n = 0, k = 0;
    if (!read_dim(p[1], m) || !read_dim(p[2], n) || !read_dim(p[3], k)) {
      fail("expected M, N and K from 1 to " + std::to_string(kMaxDim));
    }
    Problem problem;
    // Column-major BLAS with the operands swapped: C^T = B^T·A^T.
    problem.m = n;
    problem.n = m;
    problem.k = k;
    problem.precision = *precision;
    std::string layout{static_cast<char>(std::toupper(static_cast<unsigned char>(trans[1]))),
                       static_cast<char>(std::toupper(static_cast<unsigned char>(trans[0])))};
    problem.layout = parse_layout(layout);
    std::string const key = problem.describe();
    auto const [it, fresh] = index.try_emplace(key, out.gemms.size());
    if (fresh) out.gemms.push_back({problem, 0, std::string(op)});
    ++out.gemms[it->second].calls;
  }
  for (std::string const& key : skipped_order) out.skipped.emplace_back(key, skipped[key]);
  return out;
}

}  // namespace gemmtune
