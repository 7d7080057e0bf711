// Result output: aligned text tables on stdout, or JSON, and number formatting.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/fixed_text.hpp"  // fixed(), used with these throughout the CLI

namespace gemmtune {

/// A text table: a header row and data rows, printed with aligned columns.
/// `text` with control characters shown escaped (\n, \r, \t, \xNN): what reaches a terminal
/// from a table, a cache or a user's input can neither break a line nor send an escape sequence.
std::string printable(std::string_view text);

/// How a command prints its result table: aligned text for people, or CSV (`--csv`): one
/// header row of the table's column names, in the order documented per command
/// (docs/commands.md), then one row per result; a field is quoted when it holds a comma, a quote
/// or a line break, quotes doubled; lines end in "\n".
enum class TableFormat { kText, kCsv };

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  /// Adds a row; every cell is made printable() (cells come from tables and caches too).
  void add(std::vector<std::string> row) {
    for (std::string& cell : row) cell = printable(cell);
    rows_.push_back(std::move(row));
  }
  bool empty() const { return rows_.empty(); }
  void print(std::ostream& os, TableFormat format = TableFormat::kText) const;
  /// The same table as GitHub-flavoured Markdown.
  void print_markdown(std::ostream& os) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// "1.23 ms", "45.6 us".
std::string format_ms(double ms);
/// A ratio such as "1.04x", or "-" when either side is missing.
std::string ratio(double reference_ms, double ms);

/// A figure's spread as fractions of it, "0.98–1.03", with " ×6" for the rounds it came from
/// when more than one; "-" where none was recorded.
std::string spread_text(double lo_ms, double hi_ms, double ms, int rounds);

}  // namespace gemmtune
