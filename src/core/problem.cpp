// Problem shape parsing, packed leading dimensions and alignment classes.
#include "src/core/problem.hpp"

#include <cctype>
#include <charconv>
#include <utility>
#include <sstream>
#include <vector>

#include "src/core/error.hpp"

namespace gemmtune {

std::int64_t Problem::lda() const { return a_transposed(layout) ? m : k; }
std::int64_t Problem::ldb() const { return b_transposed(layout) ? k : n; }

int alignment_class(std::uint64_t bytes) {
  if (bytes == 0) return 16;
  int a = 1;
  while (a < 16 && bytes % static_cast<std::uint64_t>(a * 2) == 0) a *= 2;
  return a;
}

int Problem::packed_alignment() const {
  auto const in = static_cast<std::uint64_t>(input_bytes(precision));
  auto const out = static_cast<std::uint64_t>(output_bytes(precision));
  int a = 16;
  for (auto [ld, e] : {std::pair{lda(), in}, std::pair{ldb(), in}, std::pair{ldc(), out}}) {
    int const c = alignment_class(static_cast<std::uint64_t>(ld) * e);
    if (c < a) a = c;
  }
  return a;
}

Problem Problem::resolved() const {
  Problem p = *this;
  if (p.align == 0) p.align = packed_alignment();
  return p;
}

Problem Problem::transposed() const {
  Problem t = *this;
  t.m = n;
  t.n = m;
  switch (layout) {
    case Layout::kNN: t.layout = Layout::kTT; break;
    case Layout::kTT: t.layout = Layout::kNN; break;
    case Layout::kNT:
    case Layout::kTN: break;
  }
  return t;
}

std::string Problem::unsupported_reason() const {
  if (!is_fp8(precision)) return {};
  std::string const name(to_string(precision));
  // FP8 storage has no copy with padded rows: every stored row must be whole 16-byte units.
  if (k % 16 != 0 || (n * output_bytes(precision)) % 16 != 0) {
    return name + " needs K a multiple of 16 and N a multiple of " +
           std::to_string(16 / output_bytes(precision)) +
           " (16-byte rows of A, B and C); " + shape() + " has K=" + std::to_string(k) +
           ", N=" + std::to_string(n);
  }
  if (a_transposed(layout) && m % 16 != 0) {
    return name + " with A stored K×M (layout " + std::string(to_string(layout)) +
           ") needs M a multiple of 16 (16-byte rows of A); " + shape() + " has M=" +
           std::to_string(m);
  }
  if (!b_transposed(layout) && n % 16 != 0) {
    return name + " with B stored K×N (layout " + std::string(to_string(layout)) +
           ") needs N a multiple of 16 (16-byte rows of B); " + shape() + " has N=" +
           std::to_string(n);
  }
  return {};
}

double Problem::flops() const {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double Problem::min_bytes() const {
  double const in = input_bytes(precision), out = output_bytes(precision);
  double const dm = static_cast<double>(m), dn = static_cast<double>(n),
               dk = static_cast<double>(k);
  return in * (dm * dk + dk * dn) + out * dm * dn;
}

std::string Problem::shape() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string Problem::describe() const {
  std::ostringstream os;
  os << shape() << ' ' << to_string(precision) << ' ' << to_string(layout) << " a"
     << resolved().align;
  return os.str();
}

Problem parse_shape(std::string_view text, Precision precision, Layout layout) {
  auto fail = [&](std::string const& why) -> UsageError {
    return UsageError("bad shape '" + std::string(text) + "': " + why +
                      " (expected MxNxK, three positive integers, e.g. 4096x4096x4096)");
  };
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == 'x' || text[i] == 'X' || text[i] == ',' ||
        text[i] == ' ') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.size() != 3) throw fail("found " + std::to_string(parts.size()) + " part(s)");
  std::int64_t v[3];
  char const* names[3] = {"M", "N", "K"};
  for (int i = 0; i < 3; ++i) {
    std::string_view const s = parts[static_cast<std::size_t>(i)];
    if (s.empty()) throw fail(std::string(names[i]) + " is empty");
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        throw fail(std::string(names[i]) + " = '" + std::string(s) + "' is not a positive integer");
      }
    }
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v[i]);
    if (ec != std::errc() || ptr != s.data() + s.size() || v[i] > kMaxDim) {
      throw fail(std::string(names[i]) + " = '" + std::string(s) + "' is larger than " +
                 std::to_string(kMaxDim));
    }
    if (v[i] < 1) throw fail(std::string(names[i]) + " must be at least 1");
  }
  Problem p;
  p.m = v[0];
  p.n = v[1];
  p.k = v[2];
  p.precision = precision;
  p.layout = layout;
  return p;
}

}  // namespace gemmtune
