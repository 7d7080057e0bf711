// CLBlast-style default selection: best mean relative performance across tuned shapes.
#include "src/core/default_configs.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace gemmtune {

std::vector<DefaultChoice> choose_defaults(std::vector<ShapeTiming> const& timings) {
  using ShapeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, int>;
  std::map<ShapeKey, int> shape_index;
  std::map<std::string, int> config_index;
  std::vector<int> shape_align;
  std::vector<std::string> config_ids;
  for (auto const& t : timings) {
    ShapeKey const key{t.problem.m, t.problem.n, t.problem.k, t.problem.align};
    if (shape_index.emplace(key, static_cast<int>(shape_align.size())).second) {
      shape_align.push_back(t.problem.align);
    }
    if (config_index.emplace(t.kernel_id, static_cast<int>(config_ids.size())).second) {
      config_ids.push_back(t.kernel_id);
    }
  }
  std::size_t const n_shapes = shape_align.size();
  std::size_t const n_configs = config_ids.size();
  if (n_shapes == 0) return {};

  // Fastest time of each (shape, config); 0 = none.
  std::vector<std::map<int, double>> time(n_configs);
  std::vector<double> best(n_shapes, 0.0);
  for (auto const& t : timings) {
    int const s = shape_index.at({t.problem.m, t.problem.n, t.problem.k, t.problem.align});
    int const c = config_index.at(t.kernel_id);
    auto [it, inserted] = time[static_cast<std::size_t>(c)].emplace(s, t.time_ms);
    if (!inserted) it->second = std::min(it->second, t.time_ms);
    double& b = best[static_cast<std::size_t>(s)];
    b = (b == 0.0) ? t.time_ms : std::min(b, t.time_ms);
  }

  std::vector<double> score(n_configs, 0.0);
  std::vector<int> min_align(n_configs, 16);
  for (std::size_t c = 0; c < n_configs; ++c) {
    double sum = 0.0;
    for (auto const& [s, ms] : time[c]) {
      sum += best[static_cast<std::size_t>(s)] / ms;
      min_align[c] = std::min(min_align[c], shape_align[static_cast<std::size_t>(s)]);
    }
    // Each term is ≤ 1, so the mean is ≤ 1 up to rounding; the table format requires (0, 1].
    score[c] = std::min(1.0, sum / static_cast<double>(n_shapes));
  }

  std::set<int> aligns(shape_align.begin(), shape_align.end());
  std::vector<DefaultChoice> out;
  for (int a : aligns) {
    int pick = -1;
    for (std::size_t c = 0; c < n_configs; ++c) {
      if (min_align[c] > a) continue;
      if (pick < 0) {
        pick = static_cast<int>(c);
        continue;
      }
      auto const p = static_cast<std::size_t>(pick);
      auto const rank = [&](std::size_t x) {
        return std::tuple(score[x], time[x].size());
      };
      if (rank(c) > rank(p) || (rank(c) == rank(p) && config_ids[c] < config_ids[p])) {
        pick = static_cast<int>(c);
      }
    }
    // A shape with alignment a has a timed config whose min_align ≤ a, so pick is set.
    auto const p = static_cast<std::size_t>(pick);
    out.push_back(DefaultChoice{a, config_ids[p], score[p], static_cast<int>(time[p].size())});
  }
  return out;
}

}  // namespace gemmtune
