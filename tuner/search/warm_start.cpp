// Warm-start configs from tuned neighbouring shapes.
#include "tuner/search/warm_start.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "src/kernels/family.hpp"

namespace gemmtune {

double shape_distance(Problem const& a, Problem const& b) {
  auto term = [](std::int64_t x, std::int64_t y) {
    return std::abs(std::log2(static_cast<double>(x)) - std::log2(static_cast<double>(y)));
  };
  return term(a.m, b.m) + term(a.n, b.n) + term(a.k, b.k) + (a.layout == b.layout ? 0.0 : 1.0);
}

std::vector<KernelConfig> warm_start_from(Problem const& target,
                                          std::vector<TunedProblem> const& tuned,
                                          WarmStartOptions const& options) {
  Problem const self = target.resolved();
  std::vector<TunedProblem const*> near;
  for (TunedProblem const& t : tuned) {
    if (t.problem.precision != self.precision || t.best.empty()) continue;
    if (t.problem.resolved() == self) continue;
    near.push_back(&t);
  }
  // Ties broken by shape, so the order never depends on the order the cache listed them in.
  std::stable_sort(near.begin(), near.end(), [&](TunedProblem const* x, TunedProblem const* y) {
    double const dx = shape_distance(self, x->problem), dy = shape_distance(self, y->problem);
    if (dx != dy) return dx < dy;
    return x->problem.describe() < y->problem.describe();
  });
  if (near.size() > static_cast<std::size_t>(std::max(0, options.neighbours))) {
    near.resize(static_cast<std::size_t>(std::max(0, options.neighbours)));
  }
  std::vector<KernelConfig> out;
  std::set<std::string> seen;
  for (TunedProblem const* t : near) {
    int taken = 0;
    for (KernelConfig const& c : t->best) {
      if (taken >= options.per_neighbour) break;
      if (seen.insert(c.id()).second) out.push_back(c);
      ++taken;
    }
  }
  return out;
}

std::vector<KernelConfig> one_step_valid(KernelConfig const& config,
                                         std::vector<KernelConfig> const& candidates, int limit) {
  std::vector<KernelConfig> out;
  for (KernelConfig const& c : candidates) {
    if (static_cast<int>(out.size()) >= limit) break;
    if (c.family != config.family || c.params.size() != config.params.size()) continue;
    int differ = 0;
    for (std::size_t i = 0; i < c.params.size() && differ <= 1; ++i) {
      if (c.params[i].first != config.params[i].first) {
        differ = 2;  // another parameter list: not a neighbour
      } else if (c.params[i].second != config.params[i].second) {
        ++differ;
      }
    }
    if (differ == 1) out.push_back(c);
  }
  return out;
}

std::vector<KernelConfig> warm_start_configs(TrialStore& store, GpuIdentity const& gpu,
                                             Problem const& target,
                                             WarmStartOptions const& options) {
  Problem const self = target.resolved();
  std::vector<Problem> problems = store.tuned_problems(gpu, self.precision);
  // Only the nearest few are read in full.
  std::erase_if(problems, [&](Problem const& p) { return p.resolved() == self; });
  std::stable_sort(problems.begin(), problems.end(), [&](Problem const& x, Problem const& y) {
    double const dx = shape_distance(self, x), dy = shape_distance(self, y);
    if (dx != dy) return dx < dy;
    return x.describe() < y.describe();
  });
  if (problems.size() > static_cast<std::size_t>(std::max(0, options.neighbours))) {
    problems.resize(static_cast<std::size_t>(std::max(0, options.neighbours)));
  }
  std::vector<TunedProblem> tuned;
  for (Problem const& p : problems) {
    TunedProblem t{p, {}};
    std::set<std::string> seen;
    std::vector<Trial> ok;
    for (Trial const& trial : store.trials_for(gpu, p)) {  // newest first
      if (!seen.insert(trial.config.id()).second) continue;
      if (trial.disposition == Disposition::kOk && trial.time_ms > 0) ok.push_back(trial);
    }
    std::sort(ok.begin(), ok.end(), [](Trial const& a, Trial const& b) {
      return a.time_ms != b.time_ms ? a.time_ms < b.time_ms : a.config.id() < b.config.id();
    });
    for (Trial const& trial : ok) {
      if (t.best.size() >= static_cast<std::size_t>(options.per_neighbour)) break;
      // Ids stored before a parameter existed compare as the config they name now.
      t.best.push_back(canonical_or_same(trial.config));
    }
    tuned.push_back(std::move(t));
  }
  return warm_start_from(self, tuned, options);
}

}  // namespace gemmtune
