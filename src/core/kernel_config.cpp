// Canonical kernel id: formatting and strict parsing.
#include "src/core/kernel_config.hpp"

#include <cctype>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

bool is_family_char(char c, bool first) {
  if (c >= 'a' && c <= 'z') return true;
  return !first && ((c >= '0' && c <= '9') || c == '_');
}

bool is_param_char(char c, bool first) {
  if (c >= 'A' && c <= 'Z') return true;
  return !first && ((c >= '0' && c <= '9') || c == '_');
}

constexpr std::size_t kMaxIdLength = 1024;
constexpr std::int64_t kMaxValue = (std::int64_t{1} << 31) - 1;

}  // namespace

std::string KernelConfig::id() const {
  std::string s = family;
  s += ':';
  if (params.empty()) return s + std::string(kDefaultWord);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) s += ',';
    s += params[i].first;
    s += '=';
    s += std::to_string(params[i].second);
  }
  return s;
}

std::optional<std::int64_t> KernelConfig::get(std::string_view name) const {
  for (auto const& [k, v] : params) {
    if (k == name) return v;
  }
  return std::nullopt;
}

std::int64_t KernelConfig::at(std::string_view name) const {
  if (auto v = get(name)) return *v;
  throw Error("kernel '" + id() + "' has no parameter " + std::string(name));
}

void KernelConfig::set(std::string_view name, std::int64_t value) {
  for (auto& [k, v] : params) {
    if (k == name) {
      v = value;
      return;
    }
  }
  params.emplace_back(std::string(name), value);
}

KernelConfig parse_kernel_id(std::string_view id) {
  auto fail = [&](std::size_t pos, std::string const& why) -> UsageError {
    std::string shown(id.substr(0, 120));
    if (id.size() > 120) shown += "...";
    return UsageError("bad kernel id '" + shown + "' at character " + std::to_string(pos + 1) +
                      ": " + why + " (expected family:NAME=VALUE,..., e.g. naive:BM=32,BN=8)");
  };
  if (id.size() > kMaxIdLength) throw fail(kMaxIdLength, "longer than 1024 characters");
  KernelConfig cfg;
  std::size_t i = 0;
  while (i < id.size() && is_family_char(id[i], i == 0)) ++i;
  if (i == 0) throw fail(0, "the family name must start with a lowercase letter");
  cfg.family = std::string(id.substr(0, i));
  if (i >= id.size() || id[i] != ':') throw fail(i, "expected ':' after the family name");
  ++i;
  // A family without parameters: its canonical spelling, or the bare colon.
  if (i == id.size() || id.substr(i) == kDefaultWord) return cfg;
  while (true) {
    std::size_t const name_start = i;
    while (i < id.size() && is_param_char(id[i], i == name_start)) ++i;
    if (i == name_start) throw fail(i, "expected an uppercase parameter name");
    std::string name(id.substr(name_start, i - name_start));
    if (cfg.get(name)) throw fail(name_start, "parameter " + name + " given twice");
    if (i >= id.size() || id[i] != '=') throw fail(i, "expected '=' after " + name);
    ++i;
    std::size_t const value_start = i;
    std::int64_t value = 0;
    while (i < id.size() && std::isdigit(static_cast<unsigned char>(id[i]))) {
      value = value * 10 + (id[i] - '0');
      if (value > kMaxValue) throw fail(value_start, "value of " + name + " is too large");
      ++i;
    }
    if (i == value_start) throw fail(i, "expected a non-negative integer for " + name);
    cfg.params.emplace_back(std::move(name), value);
    if (i == id.size()) break;
    if (id[i] != ',') throw fail(i, "expected ',' or the end of the id");
    ++i;
  }
  return cfg;
}

}  // namespace gemmtune
