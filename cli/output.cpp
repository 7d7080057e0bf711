// Text tables, printable text and number formatting.
#include "cli/output.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace gemmtune {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto const u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

/// One CSV field (RFC 4180 quoting).
std::string csv_field(std::string const& cell) {
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace

void TextTable::print(std::ostream& os, TableFormat format) const {
  if (format == TableFormat::kCsv) {
    auto line = [&](std::vector<std::string> const& r) {
      for (std::size_t c = 0; c < headers_.size(); ++c) {
        if (c > 0) os << ',';
        os << csv_field(c < r.size() ? r[c] : "");
      }
      os << '\n';
    };
    line(headers_);
    for (auto const& r : rows_) line(r);
    return;
  }
  std::vector<std::size_t> width(headers_.size(), 0);
  for (std::size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
  for (auto const& r : rows_) {
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], r[c].size());
    }
  }
  auto line = [&](std::vector<std::string> const& r) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      std::string const cell = c < r.size() ? r[c] : "";
      os << cell;
      if (c + 1 < width.size()) os << std::string(width[c] - cell.size() + 2, ' ');
    }
    os << '\n';
  };
  line(headers_);
  for (auto const& r : rows_) line(r);
}

void TextTable::print_markdown(std::ostream& os) const {
  auto line = [&](std::vector<std::string> const& r) {
    os << '|';
    for (std::size_t c = 0; c < headers_.size(); ++c) os << ' ' << (c < r.size() ? r[c] : "") << " |";
    os << '\n';
  };
  line(headers_);
  os << '|';
  for (std::size_t c = 0; c < headers_.size(); ++c) os << "---|";
  os << '\n';
  for (auto const& r : rows_) line(r);
}

std::string format_ms(double ms) {
  if (ms <= 0) return "-";
  if (ms < 1.0) return fixed(ms * 1000.0, 1) + " us";
  return fixed(ms, 3) + " ms";
}

std::string ratio(double reference_ms, double ms) {
  if (reference_ms <= 0 || ms <= 0) return "-";
  return fixed(reference_ms / ms, 2) + "x";
}

std::string spread_text(double lo_ms, double hi_ms, double ms, int rounds) {
  if (lo_ms <= 0 || hi_ms <= 0 || ms <= 0) return "-";
  std::string s = fixed(lo_ms / ms, 2) + "–" + fixed(hi_ms / ms, 2);
  if (rounds > 1) s += " ×" + std::to_string(rounds);
  return s;
}

}  // namespace gemmtune
