// Search strategies: they see only configs and scores, never kernels, GPUs or the cache.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/kernel_config.hpp"

namespace gemmtune {

/// Proposes configs from a fixed candidate list and learns from their scores.
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// The next config to evaluate, or nullopt when the strategy has nothing left.
  virtual std::optional<KernelConfig> next() = 0;
  /// The result of a proposed config: its time in ms, or nullopt when it failed.
  virtual void report(KernelConfig const& config, std::optional<double> time_ms) = 0;
};

/// Every candidate, in the given (canonical) order.
std::unique_ptr<Strategy> make_exhaustive(std::vector<KernelConfig> candidates);
/// A seeded random permutation of the candidates (a budget cuts it short).
std::unique_ptr<Strategy> make_random(std::vector<KernelConfig> candidates, std::uint64_t seed);
/// By name: "exhaustive" or "random"; throws UsageError otherwise.
std::unique_ptr<Strategy> make_strategy(std::string_view name, std::vector<KernelConfig> candidates,
                                        std::uint64_t seed);

}  // namespace gemmtune
