// KernelConfig: a kernel family plus named integer parameters, with one canonical id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmtune {

/// One candidate kernel. Its id is the only name used for it anywhere (CLI, logs, DB, JSON):
///   family:NAME=VALUE,NAME=VALUE,...   e.g. "warptile:BM=128,BN=128,BK=16,WM=64,WN=64,..."
/// family: [a-z][a-z0-9_]*; NAME: [A-Z][A-Z0-9_]*; VALUE: a non-negative integer < 2^31.
/// A config without parameters is "family:default" (e.g. cublas:default; "family:" parses too).
/// Parameters keep the family descriptor's declared order, so equal configs have equal ids.
/// Only these validated integers ever reach kernel source, never raw text.
/// The word that spells "no parameters" after the colon.
inline constexpr std::string_view kDefaultWord = "default";

struct KernelConfig {
  std::string family;
  std::vector<std::pair<std::string, std::int64_t>> params;

  /// The canonical id.
  std::string id() const;
  /// Value of a parameter, or nullopt.
  std::optional<std::int64_t> get(std::string_view name) const;
  /// Value of a parameter; throws Error naming the id when absent.
  std::int64_t at(std::string_view name) const;
  /// Sets (or appends) a parameter.
  void set(std::string_view name, std::int64_t value);

  bool operator==(KernelConfig const&) const = default;
  auto operator<=>(KernelConfig const&) const = default;
};

/// Parses a kernel id; throws UsageError naming the offending text, its position and the form.
KernelConfig parse_kernel_id(std::string_view id);

}  // namespace gemmtune
