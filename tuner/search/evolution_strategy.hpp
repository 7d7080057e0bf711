// The evolution strategy: a small elite of the fastest configs seen, children by mutation of one
// parameter to a neighbouring declared value or by crossover of two parents, tournament
// selection, random immigrants and restarts when stuck, and avoidance of failure neighbourhoods;
// an initial population that covers every family when the families are few, and starts from the
// predicted fastest configs when there are predictions.
#pragma once

#include <memory>
#include <vector>

#include "tuner/search/strategy.hpp"

namespace gemmtune {

/// Tunables of the evolution strategy (the defaults are what `--strategy evolution` uses).
struct EvolutionParams {
  int elite = 5;                 ///< configs kept as parents
  int tournament = 3;            ///< parents drawn per selection; the fastest wins
  double niche_rate = 0.3;       ///< share of parents taken as the best of a random family
  double niche_slack = 1.5;      ///< ... among families within this factor of the best time
  double crossover_rate = 0.25;  ///< share of children made by crossover (else mutation)
  double immigrant_rate = 0.10;  ///< share of proposals drawn at random from the whole space
  double double_step_rate = 0.3; ///< share of mutations that move two parameters
  int patience = 16;             ///< reports without improvement before a restart
  int restart_size = 4;          ///< random proposals after a restart
  /// The initial population starts with one config of each family, in a seeded order, when it
  /// holds at least this many samples per family (0 = always), and draws the rest by family
  /// first (each family as likely as another); otherwise it is drawn uniformly over configs.
  /// Few families are rival designs (bf16 on Hopper: mma and wgmma, where 116 of 128 configs at
  /// 4096³ are mma and every wgmma one beats them all), and a uniform start can miss the small
  /// one; many families are the fp32 seed ladder, whose lower steps would waste the start.
  double family_first_ratio = 2.0;
  /// With predicted times (StrategyContext::predicted): each family's first sample is one of its
  /// predicted fastest configs, and this share of the rest of the initial population walks the
  /// whole space's predicted times from the fastest, one config of each predicted time (configs
  /// that differ only in knobs the prediction ignores share one), picked at random among them;
  /// the rest is drawn as without predictions.
  double predicted_share = 0.5;
};

/// Never proposes a config twice; proposes every candidate before it returns "finished"; the
/// sequence is a function of (candidates, context, reports) only, never of timing.
std::unique_ptr<Strategy> make_evolution(std::vector<KernelConfig> candidates,
                                         StrategyContext const& context,
                                         EvolutionParams const& params = {});

}  // namespace gemmtune
