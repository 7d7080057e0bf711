// The lookup fallback chain over an indexed tuning table.
#include "core/table_lookup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gemmtune {
namespace {

std::string gpu_key(GpuIdentity const& g) {
  return g.name + '\n' + std::to_string(g.cc_major) + '.' + std::to_string(g.cc_minor) + '\n' +
         std::to_string(g.sm_count);
}

std::string bucket_key(int gpu_id, Precision p, Layout l) {
  return std::to_string(gpu_id) + '/' + std::string(to_string(p)) + '/' + std::string(to_string(l));
}

std::string shape_key(std::int64_t m, std::int64_t n, std::int64_t k, int align) {
  return std::to_string(m) + ',' + std::to_string(n) + ',' + std::to_string(k) + ',' +
         std::to_string(align);
}

double log_distance(Problem const& a, Problem const& b) {
  double const dm = std::log2(static_cast<double>(a.m) / static_cast<double>(b.m));
  double const dn = std::log2(static_cast<double>(a.n) / static_cast<double>(b.n));
  double const dk = std::log2(static_cast<double>(a.k) / static_cast<double>(b.k));
  return std::sqrt(dm * dm + dn * dn + dk * dk);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string_view to_string(LookupRule rule) {
  switch (rule) {
    case LookupRule::kExact: return "exact";
    case LookupRule::kNearest: return "nearest";
    case LookupRule::kGpuDefault: return "gpu_default";
    case LookupRule::kArchDefault: return "arch_default";
    case LookupRule::kNone: return "none";
  }
  return "?";
}

TableIndex::TableIndex(TuningTable table) : table_(std::move(table)) {
  for (auto const& g : table_.gpus) gpu_ids_.emplace(gpu_key(g.gpu), g.id);
  for (int i = 0; i < static_cast<int>(table_.entries.size()); ++i) {
    auto const& e = table_.entries[static_cast<std::size_t>(i)];
    Bucket& b = buckets_[bucket_key(e.gpu, e.problem.precision, e.problem.layout)];
    b.entries.push_back(i);
    b.exact.emplace(shape_key(e.problem.m, e.problem.n, e.problem.k, e.problem.align), i);
  }
  for (int i = 0; i < static_cast<int>(table_.defaults.size()); ++i) {
    auto const& d = table_.defaults[static_cast<std::size_t>(i)];
    buckets_[bucket_key(d.gpu, d.precision, d.layout)].defaults.push_back(i);
  }
  for (auto& [key, b] : buckets_) {
    std::stable_sort(b.defaults.begin(), b.defaults.end(), [this](int x, int y) {
      return table_.defaults[static_cast<std::size_t>(x)].align <
             table_.defaults[static_cast<std::size_t>(y)].align;
    });
  }
}

TableIndex::Bucket const* TableIndex::bucket(int gpu_id, Precision p, Layout l) const {
  auto it = buckets_.find(bucket_key(gpu_id, p, l));
  return it == buckets_.end() ? nullptr : &it->second;
}

int TableIndex::pick_default(Bucket const& b, Problem const& p, KernelFilter const& can_run) const {
  // The default chosen among configs verified at the largest alignment class still ≤ the
  // problem's: the widest choice that is safe, and one the problem's checks accept.
  int best = -1;
  for (int i : b.defaults) {
    auto const& d = table_.defaults[static_cast<std::size_t>(i)];
    if (d.align <= p.align && (!can_run || can_run(d.kernel, p).empty())) best = i;
  }
  return best;
}

LookupResult TableIndex::lookup(GpuIdentity const& gpu, Problem const& asked,
                                KernelFilter const& can_run, KernelCost const& cost) const {
  LookupResult r;
  Problem const p = asked.resolved();
  std::string const what = p.describe();
  auto const in_range = [](std::int64_t d) { return d >= 1 && d <= kMaxDim; };
  if (!in_range(p.m) || !in_range(p.n) || !in_range(p.k)) {
    r.explanation = "none: " + p.shape() + " is not a valid shape; use cuBLAS";
    return r;
  }

  auto const gpu_it = gpu_ids_.find(gpu_key(gpu));
  Bucket const* own = gpu_it == gpu_ids_.end() ? nullptr
                                               : bucket(gpu_it->second, p.precision, p.layout);
  if (own) {
    auto const runs = [&](KernelConfig const& k) { return !can_run || can_run(k, p).empty(); };
    auto const exact = own->exact.find(shape_key(p.m, p.n, p.k, p.align));
    if (exact != own->exact.end() &&
        runs(table_.entries[static_cast<std::size_t>(exact->second)].kernel)) {
      r.rule = LookupRule::kExact;
      r.entry_index = exact->second;
      r.kernel = table_.entries[static_cast<std::size_t>(exact->second)].kernel;
      r.explanation = "exact: " + what + " was tuned on " + gpu.describe();
      return r;
    }
    // Tuned shapes of an alignment class this problem may use, nearest first (ties: the
    // larger alignment class, whose kernels may use wider loads).
    std::vector<std::pair<double, int>> near;
    for (int i : own->entries) {
      auto const& e = table_.entries[static_cast<std::size_t>(i)];
      if (e.problem.align > p.align) continue;
      near.emplace_back(log_distance(p, e.problem), i);
    }
    auto const closer = [this](std::pair<double, int> const& a, std::pair<double, int> const& b) {
      if (a.first != b.first) return a.first < b.first;
      return table_.entries[static_cast<std::size_t>(a.second)].problem.align >
             table_.entries[static_cast<std::size_t>(b.second)].problem.align;
    };
    std::size_t const keep = std::min<std::size_t>(near.size(), kNearestNeighbours);
    std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(keep), near.end(),
                      closer);
    if (cost) {
      // Every kernel measured on one of the nearest shapes, its time carried over to this one
      // by the cost model (waves of tiles: what changes most between nearby shapes).
      double best_ms = 0.0;
      int best_entry = -1;
      double best_distance = 0.0;
      KernelConfig const* best_kernel = nullptr;
      auto consider = [&](KernelConfig const& k, double measured_ms, int entry, double d) {
        auto const& e = table_.entries[static_cast<std::size_t>(entry)];
        double const there = cost(k, e.problem), here = cost(k, p);
        if (!(there > 0.0) || !(here > 0.0) || !(measured_ms > 0.0)) return;
        double const predicted = measured_ms * here / there;
        if (!std::isfinite(predicted) || (best_kernel && predicted >= best_ms)) return;
        if (!runs(k)) return;
        best_ms = predicted;
        best_entry = entry;
        best_distance = d;
        best_kernel = &k;
      };
      for (std::size_t j = 0; j < keep; ++j) {
        auto const [d, i] = near[j];
        auto const& e = table_.entries[static_cast<std::size_t>(i)];
        consider(e.kernel, e.time_ms, i, d);
        for (auto const& a : e.alternatives) consider(a.kernel, e.time_ms / a.relative, i, d);
      }
      if (best_kernel) {
        auto const& e = table_.entries[static_cast<std::size_t>(best_entry)];
        r.rule = LookupRule::kNearest;
        r.entry_index = best_entry;
        r.distance = best_distance;
        r.predicted_ms = best_ms;
        r.kernel = *best_kernel;
        r.explanation = "nearest: " + what + " was not tuned on " + gpu.describe() +
                        "; of the kernels measured on the " + std::to_string(keep) +
                        " nearest tuned shapes, the one predicted fastest here (" +
                        fixed(best_ms, 4) + " ms by waves of tiles), measured on " +
                        e.problem.describe() + " (log2 distance " + fixed(best_distance, 2) + ")";
        return r;
      }
    }
    // Without a cost model (or none it can price): the nearest tuned shape's winner that runs.
    std::sort(near.begin(), near.end(), closer);
    for (auto const& [d, i] : near) {
      auto const& e = table_.entries[static_cast<std::size_t>(i)];
      if (!runs(e.kernel)) continue;
      r.rule = LookupRule::kNearest;
      r.entry_index = i;
      r.distance = d;
      r.kernel = e.kernel;
      r.explanation = "nearest: " + what + " was not tuned on " + gpu.describe() +
                      "; using the entry for " + e.problem.describe() + " (log2 distance " +
                      fixed(d, 2) + ")";
      return r;
    }
    int const d = pick_default(*own, p, can_run);
    if (d >= 0) {
      auto const& def = table_.defaults[static_cast<std::size_t>(d)];
      r.rule = LookupRule::kGpuDefault;
      r.default_index = d;
      r.kernel = def.kernel;
      r.explanation = "gpu_default: no tuned " + std::string(to_string(p.precision)) + " " +
                      std::string(to_string(p.layout)) + " shape with alignment <= " +
                      std::to_string(p.align) + " on " + gpu.describe() +
                      "; using its default (mean relative performance " +
                      fixed(def.mean_relative, 3) + " over " + std::to_string(def.shapes) +
                      " shapes)";
      return r;
    }
  }

  // Same compute capability on another GPU: prefer the same name (a different SM count, e.g.
  // a cut-down part), then the closest SM count.
  std::vector<TableGpu const*> peers;
  for (auto const& g : table_.gpus) {
    if (g.gpu.cc_major == gpu.cc_major && g.gpu.cc_minor == gpu.cc_minor && !(g.gpu == gpu)) {
      peers.push_back(&g);
    }
  }
  std::stable_sort(peers.begin(), peers.end(), [&](TableGpu const* a, TableGpu const* b) {
    bool const an = a->gpu.name == gpu.name, bn = b->gpu.name == gpu.name;
    if (an != bn) return an;
    return std::abs(a->gpu.sm_count - gpu.sm_count) < std::abs(b->gpu.sm_count - gpu.sm_count);
  });
  for (TableGpu const* g : peers) {
    Bucket const* b = bucket(g->id, p.precision, p.layout);
    if (!b) continue;
    int const d = pick_default(*b, p, can_run);
    if (d < 0) continue;
    auto const& def = table_.defaults[static_cast<std::size_t>(d)];
    r.rule = LookupRule::kArchDefault;
    r.default_index = d;
    r.kernel = def.kernel;
    r.explanation = "arch_default: nothing tuned for " + what + " on " + gpu.describe() +
                    "; using the default of " + g->gpu.describe() + " (same " + gpu.arch() + ")";
    return r;
  }

  r.explanation = "none: nothing in the table for " + what + " on " + gpu.describe() +
                  " or another " + gpu.arch() + " GPU; use cuBLAS";
  return r;
}

LookupResult lookup(TuningTable const& table, GpuIdentity const& gpu, Problem const& problem,
                    KernelFilter const& can_run, KernelCost const& cost) {
  return TableIndex(table).lookup(gpu, problem, can_run, cost);
}

}  // namespace gemmtune
