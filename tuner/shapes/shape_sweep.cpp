// Size lists and sweeps, and shapes whose dimensions are sweeps.
#include "tuner/shapes/shape_sweep.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "src/core/error.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {
namespace {

constexpr std::string_view kSweepForms = "a sweep A:B:pow2 or A:B:STEP";

/// A size from 1 to kMaxDim; else UsageError "bad WHAT 'ITEM': expected integers from 1 to
/// kMaxDim, FORMS".
std::int64_t parse_count(std::string_view text, std::string_view item, std::string_view what,
                         std::string_view forms = kSweepForms) {
  std::int64_t v = 0;
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxDim) {
    throw UsageError("bad " + std::string(what) + " '" + std::string(item) +
                     "': expected integers from 1 to " + std::to_string(kMaxDim) + ", " +
                     std::string(forms));
  }
  return v;
}

/// The 'x'-separated dimensions of a shape text.
std::vector<std::string_view> split_dims(std::string_view text) {
  std::vector<std::string_view> dims;
  std::size_t start = 0;
  while (true) {
    std::size_t const x = text.find('x', start);
    dims.push_back(text.substr(start, x == std::string_view::npos ? text.npos : x - start));
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  return dims;
}

}  // namespace

std::vector<std::int64_t> parse_sizes(std::string_view text, std::string_view what) {
  std::set<std::int64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t const comma = std::min(text.find(',', start), text.size());
    std::string_view const item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) {
      throw UsageError("bad " + std::string(what) + "s '" + std::string(text) + "': an empty item");
    }
    std::size_t const c1 = item.find(':');
    if (c1 == std::string_view::npos) {
      out.insert(parse_count(item, item, what));
      continue;
    }
    std::size_t const c2 = item.find(':', c1 + 1);
    if (c2 == std::string_view::npos || item.find(':', c2 + 1) != std::string_view::npos) {
      throw UsageError("bad " + std::string(what) + " sweep '" + std::string(item) +
                       "': expected A:B:pow2 or A:B:STEP");
    }
    std::int64_t const a = parse_count(item.substr(0, c1), item, what);
    std::int64_t const b = parse_count(item.substr(c1 + 1, c2 - c1 - 1), item, what);
    std::string_view const step = item.substr(c2 + 1);
    if (b < a) {
      throw UsageError("bad " + std::string(what) + " sweep '" + std::string(item) +
                       "': the end is below the start");
    }
    if (step == "pow2") {
      for (std::int64_t v = a; v <= b; v *= 2) out.insert(v);
    } else {
      std::int64_t const s = parse_count(step, item, what);
      for (std::int64_t v = a; v <= b; v += s) out.insert(v);
    }
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> expand_shape_sweep(std::string_view text) {
  if (text.find(':') == std::string_view::npos) return {std::string(text)};
  std::vector<std::string_view> const dims = split_dims(text);
  if (dims.size() != 3) {
    throw UsageError("bad shape sweep '" + std::string(text) +
                     "': expected MxNxK with sweeps A:B:pow2 or A:B:STEP in place of sizes");
  }
  std::vector<std::vector<std::int64_t>> sizes;
  std::size_t count = 1;
  for (std::string_view d : dims) {
    sizes.push_back(parse_sizes(d, "size"));
    count *= sizes.back().size();
    if (count > kMaxSweepShapes) {
      throw UsageError("shape sweep '" + std::string(text) + "' stands for more than " +
                       std::to_string(kMaxSweepShapes) + " problems");
    }
  }
  std::vector<std::string> out;
  for (std::int64_t m : sizes[0]) {
    for (std::int64_t n : sizes[1]) {
      for (std::int64_t k : sizes[2]) {
        out.push_back(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
      }
    }
  }
  return out;
}

bool parse_range_shape(std::string_view text, RangeShape& out) {
  // A '-' after the first character of a dimension makes a range; a leading one is a negative
  // size, which the shape parser reports as such.
  auto const is_range = [](std::string_view d) {
    std::size_t const dash = d.find('-');
    return dash != std::string_view::npos && dash > 0;
  };
  std::vector<std::string_view> const dims = split_dims(text);
  bool const any = std::any_of(dims.begin(), dims.end(), is_range);
  if (!any) return false;
  if (dims.size() != 3) {
    throw UsageError("bad range shape '" + std::string(text) + "': expected A-BxNxK");
  }
  if (is_range(dims[1]) || is_range(dims[2])) {
    throw UsageError("bad range shape '" + std::string(text) +
                     "': only M may be a range (the buckets are over M); sweep N or K with "
                     "A:B:STEP");
  }
  std::size_t const dash = dims[0].find('-');
  std::string_view const forms = "in a range A-BxNxK";
  out.m_lo = parse_count(dims[0].substr(0, dash), text, "range shape", forms);
  out.m_hi = parse_count(dims[0].substr(dash + 1), text, "range shape", forms);
  out.n = parse_count(dims[1], text, "range shape", forms);
  out.k = parse_count(dims[2], text, "range shape", forms);
  if (out.m_lo >= out.m_hi) {
    throw UsageError("bad range shape '" + std::string(text) + "': the range " +
                     std::to_string(out.m_lo) + "-" + std::to_string(out.m_hi) +
                     " is empty or inverted (expected A < B)");
  }
  return true;
}

}  // namespace gemmtune
