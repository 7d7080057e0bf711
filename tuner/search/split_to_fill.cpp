// Split to fill: warm-start configs re-split along K so that their waves fill the SMs best.
#include "tuner/search/split_to_fill.hpp"

#include <map>
#include <set>
#include <string>

#include "src/kernels/family.hpp"

namespace gemmtune {
namespace {

/// The config's id with SK left out: configs equal under it differ only in their split.
std::string without_split(KernelConfig c) {
  std::erase_if(c.params, [](auto const& p) { return p.first == "SK"; });
  return c.id();
}

std::int64_t main_blocks(KernelConfig const& c, Problem const& problem) {
  Family const* const family = find_family(c.family);
  if (family == nullptr) return 0;
  LaunchPlan const plan = family->launch_plan(c, problem);
  if (plan.launches.empty()) return 0;
  Dim3 const& g = plan.launches.front().grid;
  return g.x * g.y * g.z;
}

}  // namespace

std::vector<KernelConfig> split_to_fill(std::vector<KernelConfig> const& warm,
                                        std::vector<KernelConfig> const& candidates,
                                        Problem const& problem, int sm_count) {
  std::vector<KernelConfig> out;
  if (sm_count <= 0) return out;
  // Candidates with an SK parameter by the rest of their id, in increasing SK.
  std::map<std::string, std::map<std::int64_t, KernelConfig const*>> splits;
  for (KernelConfig const& c : candidates) {
    if (auto const sk = c.get("SK")) splits[without_split(c)][*sk] = &c;
  }
  std::set<std::string> seen;
  for (KernelConfig const& c : warm) seen.insert(c.id());
  for (KernelConfig const& c : warm) {
    if (!c.get("SK") || main_blocks(c, problem) >= sm_count) continue;
    auto const it = splits.find(without_split(c));
    if (it == splits.end()) continue;
    // Waves of one block per SM: the split whose last wave leaves the fewest SMs idle, the
    // smaller split on a tie (its reduction is cheaper).
    KernelConfig const* pick = nullptr;
    double best_fill = 0.0;
    for (auto const& [sk, cfg] : it->second) {
      std::int64_t const blocks = main_blocks(*cfg, problem);
      if (blocks <= 0) continue;
      std::int64_t const waves = (blocks + sm_count - 1) / sm_count;
      double const fill = static_cast<double>(blocks) / static_cast<double>(waves * sm_count);
      if (fill > best_fill + 1e-9) {
        best_fill = fill;
        pick = cfg;
      }
    }
    if (pick != nullptr && seen.insert(pick->id()).second) out.push_back(*pick);
  }
  return out;
}

}  // namespace gemmtune
