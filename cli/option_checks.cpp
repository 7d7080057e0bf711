// Numeric option validators (see option_checks.hpp).
#include "cli/option_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace gemmtune {
namespace {

std::string range_text(double lo, double hi) {
  auto text = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  return "[" + text(lo) + ", " + text(hi) + "]";
}

}  // namespace

CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        double v = 0.0;
        auto const* first = value.data();
        auto const* last = value.data() + value.size();
        auto const [end, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || end != last || !std::isfinite(v) || v < lo || v > hi) {
          return "'" + value + "' is not a finite number in " + range_text(lo, hi);
        }
        return {};
      },
      "NUMBER in " + range_text(lo, hi));
}

CLI::Validator integer_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        long long v = 0;
        auto const* first = value.data();
        auto const* last = value.data() + value.size();
        auto const [end, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || end != last || v < lo || v > hi) {
          return "'" + value + "' is not an integer in [" + std::to_string(lo) + ", " +
                 std::to_string(hi) + "]";
        }
        return {};
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::uint64_t v = 0;
        auto const* first = value.data();
        auto const* last = value.data() + value.size();
        auto const [end, ec] = std::from_chars(first, last, v);
        if (value.empty() || value.front() == '-' || value.front() == '+' ||
            ec != std::errc() || end != last) {
          return "'" + value + "' is not a seed (an integer in [0, 18446744073709551615])";
        }
        return {};
      },
      "SEED");
}

CLI::Validator non_empty_text(std::string const& option) {
  return CLI::Validator(
      [option](std::string& value) -> std::string {
        if (value.empty()) {
          return "an empty " + option + " names no file (leave the option out for the default)";
        }
        return {};
      },
      "TEXT");
}

void add_timing_options(CLI::App& sub, double& timeout_s, double& target_ms, int& repeats,
                        std::string const& what, std::string const& timeout_help) {
  sub.add_option("--timeout", timeout_s, timeout_help)
      ->check(finite_in(0.001, 86400.0))
      ->capture_default_str();
  sub.add_option("--target-ms", target_ms, what + ": duration of one repeat")
      ->check(finite_in(0.001, 600000.0))
      ->capture_default_str();
  sub.add_option("--repeats", repeats, what + ": repeats (median taken)")
      ->check(integer_in(1, 1000))
      ->capture_default_str();
}

}  // namespace gemmtune
