// Evolution over the parameter grid. Candidates are indexed once; "lines" group the candidates
// that differ in one parameter only, ordered by that parameter's declared position, so a
// mutation to a neighbouring value is a step along a line and never leaves the valid space.
#include "tuner/search/evolution_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace gemmtune {
namespace {

constexpr double kFailed = std::numeric_limits<double>::infinity();

class EvolutionStrategy : public Strategy {
 public:
  EvolutionStrategy(std::vector<KernelConfig> candidates, StrategyContext const& ctx,
                    EvolutionParams const& params)
      : params_(params), rng_(ctx.seed), lag_(std::max(0, ctx.lag)) {
    std::vector<std::string> candidates_in_order;
    if (!ctx.predicted.empty()) {
      for (KernelConfig const& c : candidates) candidates_in_order.push_back(c.id());
    }
    index_candidates(std::move(candidates), ctx.grid);
    for (KernelConfig const& c : ctx.warm_start) {
      auto const it = by_id_.find(c.id());
      if (it != by_id_.end()) warm_.push_back(it->second);
    }
    int const families = static_cast<int>(by_family_.size());
    int sized = 8;
    if (ctx.budget_evaluations > 0) {
      sized = static_cast<int>(std::clamp<long long>(ctx.budget_evaluations / 6, 4, 12));
    }
    init_left_ = std::min<int>(std::max(families, sized), static_cast<int>(cands_.size()));
    // Each family is sampled once first, in a seeded order (the best family differs by shape),
    // when that takes at most 1/ratio of the initial population. Measured by replay on the
    // H200 data (tests/data/replay, 20 seeds): the bf16 core suite's worst case, cold, rose from
    // 49.8% to 65.9% of the optimum in 12 simulated seconds and from 48.9% to 62.4% in 50
    // evaluations; the fp32 ladder (7 families, at most 12 initial samples) is unchanged.
    // The rest of such a start then picks a family first (each as likely as another), so the
    // small family is not left to its share of configs (wgmma: 63 of 384 bf16 configs at
    // 1024³). Replayed on the same data (100 seeds, cold), the median over the 12 problems at
    // 3 simulated seconds rose from 85.2% to 92.1% of the optimum, at 20 evaluations from 95.4%
    // to 97.2% (worst 46.6% to 53.9%), at 50 from 99.7% to 100% (worst 57.4% to 62.9%); the
    // fp32 sets and warm starts are unchanged.
    for (int f = 0; f < families; ++f) family_order_.push_back(f);
    std::shuffle(family_order_.begin(), family_order_.end(), rng_);
    family_first_ = init_left_ >= params_.family_first_ratio * families;
    rank_by_prediction(candidates_in_order, ctx.predicted);
    int const rest = init_left_ - (family_first_ ? families : 0);
    if (!groups_.empty() && rest > 0) {
      predicted_left_ = static_cast<int>(std::lround(params_.predicted_share * rest));
    }
  }

  std::optional<KernelConfig> next() override {
    if (proposals_.size() == cands_.size()) return std::nullopt;
    long long const known = static_cast<long long>(proposals_.size()) - lag_;
    while (static_cast<long long>(applied_) < known) {
      if (!reports_[applied_]) return std::nullopt;  // wait: its report decides what comes next
      apply(proposals_[applied_], *reports_[applied_]);
      ++applied_;
    }
    int const c = choose();
    proposal_of_[static_cast<std::size_t>(c)] = static_cast<int>(proposals_.size());
    proposals_.push_back(c);
    reports_.emplace_back();
    return cands_[static_cast<std::size_t>(c)].config;
  }

  void report(KernelConfig const& config, std::optional<double> time_ms) override {
    auto const it = by_id_.find(config.id());
    if (it == by_id_.end()) return;
    int const p = proposal_of_[static_cast<std::size_t>(it->second)];
    if (p < 0) return;
    if (time_ms && !(*time_ms > 0)) time_ms.reset();  // a non-positive time is no measurement
    reports_[static_cast<std::size_t>(p)] = time_ms ? *time_ms : kFailed;
  }

 private:
  struct Cand {
    KernelConfig config;
    int family = 0;
    std::vector<int> pos;  ///< declared value index per axis
    /// Per axis: the line through this candidate along that axis, and its place on it.
    std::vector<std::pair<int, int>> on_line;
  };

  void index_candidates(std::vector<KernelConfig> candidates, ParamGrid const& declared) {
    ParamGrid const observed = ParamGrid::of_configs(candidates);
    std::map<std::string, int> family_index;
    std::map<std::string, std::vector<ParamAxis>> axes_of;
    for (KernelConfig const& c : candidates) {
      if (by_id_.count(c.id())) continue;  // a duplicate would be proposed twice
      auto [fit, added] = family_index.try_emplace(c.family, static_cast<int>(by_family_.size()));
      if (added) {
        by_family_.emplace_back();
        // The declared axes give "neighbouring value" its meaning; configs with parameters
        // they do not declare fall back to the values seen among the candidates.
        std::vector<ParamAxis> const* d = declared.axes(c.family);
        axes_of[c.family] = d ? *d : *observed.axes(c.family);
      }
      std::vector<ParamAxis>& axes = axes_of[c.family];
      if (!covers(axes, c)) axes = *observed.axes(c.family);
      Cand cand;
      cand.config = c;
      cand.family = fit->second;
      by_id_[c.id()] = static_cast<int>(cands_.size());
      by_family_[static_cast<std::size_t>(cand.family)].push_back(static_cast<int>(cands_.size()));
      cands_.push_back(std::move(cand));
    }
    for (Cand& c : cands_) {
      std::vector<ParamAxis> const& axes = axes_of[c.config.family];
      c.pos.clear();
      for (ParamAxis const& a : axes) {
        std::int64_t const v = c.config.get(a.name).value_or(-1);
        auto const it = std::find(a.values.begin(), a.values.end(), v);
        c.pos.push_back(it == a.values.end() ? -1 : static_cast<int>(it - a.values.begin()));
      }
      by_pos_[{c.family, c.pos}] = static_cast<int>(&c - cands_.data());
    }
    // Lines: candidates equal in every axis but one, ordered along that one.
    std::map<std::pair<int, std::vector<int>>, int> line_key;
    for (std::size_t i = 0; i < cands_.size(); ++i) {
      Cand& c = cands_[i];
      c.on_line.assign(c.pos.size(), {-1, -1});
      for (std::size_t a = 0; a < c.pos.size(); ++a) {
        std::vector<int> key = c.pos;
        key[a] = -2;
        key.push_back(static_cast<int>(a));
        auto [it, added] = line_key.try_emplace({c.family, key}, static_cast<int>(lines_.size()));
        if (added) {
          lines_.emplace_back();
          line_axis_.push_back(static_cast<int>(a));
        }
        lines_[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(i));
        c.on_line[a].first = it->second;
      }
    }
    for (std::size_t l = 0; l < lines_.size(); ++l) {
      auto& line = lines_[l];
      int const a = line_axis_[l];
      std::sort(line.begin(), line.end(), [&](int x, int y) {
        return cands_[static_cast<std::size_t>(x)].pos[static_cast<std::size_t>(a)] <
               cands_[static_cast<std::size_t>(y)].pos[static_cast<std::size_t>(a)];
      });
      for (std::size_t k = 0; k < line.size(); ++k) {
        cands_[static_cast<std::size_t>(line[k])].on_line[static_cast<std::size_t>(a)].second =
            static_cast<int>(k);
      }
    }
    proposal_of_.assign(cands_.size(), -1);
    family_best_.assign(by_family_.size(), -1);
    time_.assign(cands_.size(), -1.0);
    near_fail_.assign(cands_.size(), 0);
    near_ok_.assign(cands_.size(), 0);
  }

  static bool covers(std::vector<ParamAxis> const& axes, KernelConfig const& c) {
    if (axes.size() != c.params.size()) return false;
    for (auto const& [name, value] : c.params) {
      auto const a = std::find_if(axes.begin(), axes.end(),
                                  [&](ParamAxis const& x) { return x.name == name; });
      if (a == axes.end() ||
          std::find(a->values.begin(), a->values.end(), value) == a->values.end()) {
        return false;
      }
    }
    return true;
  }

  bool proposed(int c) const { return proposal_of_[static_cast<std::size_t>(c)] >= 0; }

  /// Mostly failures around it and few successes: likely another failure (spills, too much
  /// shared memory, a wrong result pattern), so children avoid it.
  bool doomed(int c) const {
    int const f = near_fail_[static_cast<std::size_t>(c)];
    return f >= 2 && f > 2 * near_ok_[static_cast<std::size_t>(c)];
  }

  double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
  int below(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }

  void apply(int c, double time) {
    time_[static_cast<std::size_t>(c)] = time;
    bool const ok = time != kFailed;
    Cand const& cand = cands_[static_cast<std::size_t>(c)];
    for (auto const& [line, at] : cand.on_line) {
      auto const& members = lines_[static_cast<std::size_t>(line)];
      for (int d : {-1, 1}) {
        int const k = at + d;
        if (k < 0 || k >= static_cast<int>(members.size())) continue;
        auto& counter = ok ? near_ok_ : near_fail_;
        ++counter[static_cast<std::size_t>(members[static_cast<std::size_t>(k)])];
      }
    }
    if (ok) {
      int& fb = family_best_[static_cast<std::size_t>(cand.family)];
      if (fb < 0 || time < time_[static_cast<std::size_t>(fb)]) fb = c;
      elite_.push_back(c);
      std::sort(elite_.begin(), elite_.end(), [&](int x, int y) {
        double const tx = time_[static_cast<std::size_t>(x)], ty = time_[static_cast<std::size_t>(y)];
        return tx != ty ? tx < ty : x < y;
      });
      if (elite_.size() > static_cast<std::size_t>(params_.elite)) elite_.resize(static_cast<std::size_t>(params_.elite));
    }
    if (ok && time < best_) {
      best_ = time;
      since_improvement_ = 0;
    } else if (++since_improvement_ >= params_.patience) {
      // Stuck: keep only the best as a parent and let random newcomers compete with it.
      since_improvement_ = 0;
      restart_left_ = params_.restart_size;
      if (elite_.size() > 1) elite_.resize(1);
    }
  }

  int choose() {
    while (!warm_.empty()) {
      int const c = warm_.front();
      warm_.pop_front();
      if (!proposed(c)) return c;
    }
    int c = -1;
    if (init_left_ > 0) {
      --init_left_;
      bool const families_left = family_first_ && next_family_ < family_order_.size();
      if (!families_left && predicted_left_ > 0) {
        --predicted_left_;
        c = from_next_group(groups_, next_group_);
      }
      if (c < 0) c = family_first_ ? explore_by_family() : explore();
    } else if (restart_left_ > 0 || elite_.empty()) {
      if (restart_left_ > 0) --restart_left_;
      c = explore();
    } else {
      double const u = uniform();
      if (u < params_.immigrant_rate) c = explore();
      else if (u < params_.immigrant_rate + params_.crossover_rate) c = crossover();
      if (c < 0) c = mutate();
    }
    if (c < 0) c = explore();
    return c;
  }

  /// A random unproposed candidate: from the next family not yet sampled, else from the whole
  /// space, preferring ones outside failure neighbourhoods.
  int explore() {
    while (family_first_ && next_family_ < family_order_.size()) {
      int const f = family_order_[next_family_++];
      // The family's predicted fastest config where it has predictions.
      std::size_t from = 0;
      int c = from_next_group(family_groups_[static_cast<std::size_t>(f)], from);
      if (c < 0) c = random_unproposed(by_family_[static_cast<std::size_t>(f)]);
      if (c >= 0) return c;
    }
    if (int const c = from_competitive_family(); c >= 0) return c;
    for (int attempt = 0; attempt < 16; ++attempt) {
      int const c = below(static_cast<int>(cands_.size()));
      if (!proposed(c) && (!doomed(c) || attempt >= 8)) return c;
    }
    std::vector<int> all(cands_.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    return random_unproposed(all);
  }

  /// A random unproposed config of a family still in the race, drawn uniformly over the open
  /// configs of those families; -1 when every family is (nothing measured yet, one family, or
  /// none left open). A family is out once it has been measured and its fastest config is more
  /// than niche_slack times the best: random draws over the whole space went by config count,
  /// so at 1537x1024x4096 bf16 (an H100 search, 3 s) the mma family, 312 of 378 configs and
  /// half as fast as wgmma at best, took 20 of its 32 kernels timed.
  int from_competitive_family() {
    if (by_family_.size() < 2 || best_ == kFailed) return -1;
    std::vector<int> open;
    bool any_out = false;
    for (std::size_t f = 0; f < by_family_.size(); ++f) {
      // A family without a time (not drawn yet, or only failures) may still be fast.
      int const fb = family_best_[f];
      if (fb >= 0 && time_[static_cast<std::size_t>(fb)] > params_.niche_slack * best_) {
        any_out = true;
        continue;
      }
      for (int c : by_family_[f]) {
        if (!proposed(c)) open.push_back(c);
      }
    }
    if (!any_out || open.empty()) return -1;  // nothing to leave out: the uniform draw below
    return random_unproposed(open);
  }

  /// The initial population when the families are few: each family once, then a random family
  /// (each as likely as another, however many configs it has) and a random config in it.
  int explore_by_family() {
    if (next_family_ < family_order_.size() || by_family_.size() < 2) return explore();
    for (int attempt = 0; attempt < 8; ++attempt) {
      int const f = below(static_cast<int>(by_family_.size()));
      int const c = random_unproposed(by_family_[static_cast<std::size_t>(f)]);
      if (c >= 0) return c;
    }
    return explore();
  }

  /// Candidates with a prediction, grouped by equal predicted time (the estimate sees the tile
  /// and split, not every knob: a group is one tile shape's variants), fastest group first (ties
  /// in candidate order), over the whole space and per family.
  void rank_by_prediction(std::vector<std::string> const& ids, std::vector<double> const& predicted) {
    family_groups_.assign(by_family_.size(), {});
    if (predicted.size() != ids.size()) return;  // none, or not one per candidate
    std::vector<double> of(cands_.size(), 0.0);
    std::vector<int> ranked;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      int const c = by_id_.at(ids[i]);
      if (predicted[i] > 0 && std::isfinite(predicted[i]) && of[static_cast<std::size_t>(c)] <= 0) {
        of[static_cast<std::size_t>(c)] = predicted[i];
        ranked.push_back(c);
      }
    }
    std::stable_sort(ranked.begin(), ranked.end(), [&](int x, int y) {
      return of[static_cast<std::size_t>(x)] < of[static_cast<std::size_t>(y)];
    });
    auto group = [&](std::vector<std::vector<int>>& groups, int c) {
      if (groups.empty() ||
          of[static_cast<std::size_t>(groups.back().front())] != of[static_cast<std::size_t>(c)]) {
        groups.emplace_back();
      }
      groups.back().push_back(c);
    };
    for (int c : ranked) {
      group(groups_, c);
      group(family_groups_[static_cast<std::size_t>(cands_[static_cast<std::size_t>(c)].family)], c);
    }
  }

  /// A random member of the first group of `groups` from `from` on of which nothing has been
  /// proposed yet (-1 when none); `from` moves past it, so the next call takes another
  /// predicted time.
  int from_next_group(std::vector<std::vector<int>> const& groups, std::size_t& from) {
    for (; from < groups.size(); ++from) {
      std::vector<int> const& g = groups[from];
      if (std::any_of(g.begin(), g.end(), [&](int c) { return proposed(c); })) continue;
      int const c = random_unproposed(g);
      if (c >= 0) {
        ++from;
        return c;
      }
    }
    return -1;
  }

  int random_unproposed(std::vector<int> const& members) {
    std::vector<int> open;
    for (int c : members) {
      if (!proposed(c)) open.push_back(c);
    }
    if (open.empty()) return -1;
    std::vector<int> fine;
    for (int c : open) {
      if (!doomed(c)) fine.push_back(c);
    }
    std::vector<int> const& pool = fine.empty() ? open : fine;
    return pool[static_cast<std::size_t>(below(static_cast<int>(pool.size())))];
  }

  int tournament() {
    // Now and then a parent from another competitive family, so a family whose first samples
    // were unlucky still gets explored (the best family differs by shape).
    if (uniform() < params_.niche_rate) {
      std::vector<int> niches;
      for (int fb : family_best_) {
        if (fb >= 0 && time_[static_cast<std::size_t>(fb)] <= params_.niche_slack * best_) niches.push_back(fb);
      }
      if (!niches.empty()) return niches[static_cast<std::size_t>(below(static_cast<int>(niches.size())))];
    }
    int best = -1;
    for (int i = 0; i < params_.tournament; ++i) {
      int const c = elite_[static_cast<std::size_t>(below(static_cast<int>(elite_.size())))];
      if (best < 0 || time_[static_cast<std::size_t>(c)] < time_[static_cast<std::size_t>(best)] ||
          (time_[static_cast<std::size_t>(c)] == time_[static_cast<std::size_t>(best)] && c < best)) {
        best = c;
      }
    }
    return best;
  }

  /// One step along a random axis from `from`: to the neighbouring valid value, sometimes
  /// two values away. Returns -1 when the axis has no other candidate.
  int step(int from) {
    Cand const& c = cands_[static_cast<std::size_t>(from)];
    if (c.on_line.empty()) return -1;
    int const a = below(static_cast<int>(c.on_line.size()));
    auto const& [line, at] = c.on_line[static_cast<std::size_t>(a)];
    auto const& members = lines_[static_cast<std::size_t>(line)];
    if (members.size() < 2) return -1;
    int dir = (rng_() & 1) ? 1 : -1;
    int const dist = uniform() < 0.25 ? 2 : 1;
    int k = at + dir * dist;
    if (k < 0 || k >= static_cast<int>(members.size())) k = at - dir * dist;
    if (k < 0 || k >= static_cast<int>(members.size())) k = at + (at == 0 ? 1 : -1);
    return members[static_cast<std::size_t>(k)];
  }

  int mutate() {
    for (int attempt = 0; attempt < 24; ++attempt) {
      int c = step(tournament());
      if (c >= 0 && uniform() < params_.double_step_rate) {
        int const further = step(c);
        if (further >= 0) c = further;
      }
      if (c >= 0 && !proposed(c) && !doomed(c)) return c;
    }
    return -1;
  }

  int crossover() {
    for (int attempt = 0; attempt < 8; ++attempt) {
      int const a = tournament(), b = tournament();
      Cand const& x = cands_[static_cast<std::size_t>(a)];
      Cand const& y = cands_[static_cast<std::size_t>(b)];
      if (a == b || x.family != y.family) continue;
      std::vector<int> pos = x.pos;
      for (std::size_t i = 0; i < pos.size(); ++i) {
        if (rng_() & 1) pos[i] = y.pos[i];
      }
      auto const it = by_pos_.find({x.family, pos});
      if (it != by_pos_.end() && !proposed(it->second) && !doomed(it->second)) return it->second;
    }
    return -1;
  }

  EvolutionParams params_;
  std::mt19937_64 rng_;
  int lag_;

  std::vector<Cand> cands_;
  std::map<std::string, int> by_id_;
  std::map<std::pair<int, std::vector<int>>, int> by_pos_;
  std::vector<std::vector<int>> by_family_;
  std::vector<std::vector<int>> lines_;
  std::vector<int> line_axis_;       ///< the axis each line varies

  std::vector<int> proposals_;       ///< proposal → candidate
  std::vector<int> proposal_of_;     ///< candidate → proposal, −1 = not proposed
  std::vector<std::optional<double>> reports_;  ///< per proposal; kFailed for failures
  std::size_t applied_ = 0;          ///< reports learned from, in proposal order

  std::vector<double> time_;         ///< −1 unknown, kFailed, or ms
  std::vector<int> near_fail_, near_ok_;
  std::vector<int> elite_;           ///< fastest first
  std::vector<int> family_best_;     ///< per family, its fastest config (−1 = none yet)
  double best_ = kFailed;
  int since_improvement_ = 0;

  std::deque<int> warm_;
  int init_left_ = 0;
  int restart_left_ = 0;
  bool family_first_ = false;        ///< the initial population covers every family first
  std::vector<int> family_order_;
  std::size_t next_family_ = 0;
  /// Candidates of equal predicted time, fastest first, and the same per family.
  std::vector<std::vector<int>> groups_;
  std::vector<std::vector<std::vector<int>>> family_groups_;
  std::size_t next_group_ = 0;  ///< the next group the initial population takes from
  int predicted_left_ = 0;      ///< initial proposals still to take from groups_
};

}  // namespace

std::unique_ptr<Strategy> make_evolution(std::vector<KernelConfig> candidates,
                                         StrategyContext const& context,
                                         EvolutionParams const& params) {
  return std::make_unique<EvolutionStrategy>(std::move(candidates), context, params);
}

}  // namespace gemmtune
