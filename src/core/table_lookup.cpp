// The lookup fallback chain over an indexed tuning table.
#include "src/core/table_lookup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "src/core/fixed_text.hpp"
#include "src/core/vendor_kernel.hpp"

namespace gemmtune {
namespace {

std::string gpu_key(GpuIdentity const& g) {
  return g.name + '\n' + std::to_string(g.cc_major) + '.' + std::to_string(g.cc_minor) + '\n' +
         std::to_string(g.sm_count);
}

std::string bucket_key(int gpu_id, Precision p, Layout l) {
  return std::to_string(gpu_id) + '/' + std::string(to_string(p)) + '/' + std::string(to_string(l));
}

std::string layer_key(int gpu_id, Precision p, Layout l, std::int64_t n, std::int64_t k) {
  return bucket_key(gpu_id, p, l) + '/' + std::to_string(n) + ',' + std::to_string(k);
}

std::string shape_key(std::int64_t m, std::int64_t n, std::int64_t k, int align) {
  return std::to_string(m) + ',' + std::to_string(n) + ',' + std::to_string(k) + ',' +
         std::to_string(align);
}

}  // namespace

std::string_view to_string(LookupRule rule) {
  switch (rule) {
    case LookupRule::kExact: return "exact";
    case LookupRule::kRange: return "range";
    case LookupRule::kNearest: return "nearest";
    case LookupRule::kGpuDefault: return "gpu_default";
    case LookupRule::kArchDefault: return "arch_default";
    case LookupRule::kNone: return "none";
  }
  return "?";
}

TableIndex::TableIndex(TuningTable table) : table_(std::move(table)) {
  for (auto const& g : table_.gpus) gpu_ids_.emplace(gpu_key(g.gpu), g.id);
  log_shapes_.reserve(table_.entries.size());
  for (auto const& e : table_.entries) {
    log_shapes_.push_back({std::log2(static_cast<double>(e.problem.m)),
                           std::log2(static_cast<double>(e.problem.n)),
                           std::log2(static_cast<double>(e.problem.k))});
  }
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
  for (int i = 0; i < static_cast<int>(table_.ranges.size()); ++i) {
    auto const& r = table_.ranges[static_cast<std::size_t>(i)];
    ranges_[layer_key(r.gpu, r.precision, r.layout, r.n, r.k)].push_back(i);
  }
  for (auto& [key, list] : ranges_) {
    std::stable_sort(list.begin(), list.end(), [this](int x, int y) {
      return table_.ranges[static_cast<std::size_t>(x)].align >
             table_.ranges[static_cast<std::size_t>(y)].align;
    });
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

bool TableIndex::lookup_range(int gpu_id, Problem const& p, Bucket const& own,
                              std::function<bool(KernelConfig const&)> const& runs,
                              LookupResult& r) const {
  auto const it = ranges_.find(layer_key(gpu_id, p.precision, p.layout, p.n, p.k));
  if (it == ranges_.end()) return false;
  for (int const ri : it->second) {
    TableRange const& range = table_.ranges[static_cast<std::size_t>(ri)];
    if (range.align > p.align || p.m < range.buckets.front().m_lo ||
        p.m > range.buckets.back().m_hi) {
      continue;
    }
    // The first bucket whose upper bound reaches M (the buckets are contiguous).
    auto const b = std::lower_bound(range.buckets.begin(), range.buckets.end(), p.m,
                                    [](TableRangeBucket const& x, std::int64_t m) {
                                      return x.m_hi < m;
                                    });
    auto const entry = own.exact.find(shape_key(b->m, p.n, p.k, range.align));
    if (entry == own.exact.end()) continue;
    KernelConfig const& kernel = table_.entries[static_cast<std::size_t>(entry->second)].kernel;
    if (!runs(kernel)) continue;
    r.rule = LookupRule::kRange;
    r.entry_index = entry->second;
    r.range_index = ri;
    r.kernel = kernel;
    r.explanation = "range: M=" + std::to_string(p.m) + " of " + std::to_string(p.n) + "x" +
                    std::to_string(p.k) + " " + std::string(to_string(p.precision)) + " " +
                    std::string(to_string(p.layout)) + " is in the bucket [" +
                    std::to_string(b->m_lo) + ", " + std::to_string(b->m_hi) +
                    "], whose pick was measured at M=" + std::to_string(b->m) + " (a" +
                    std::to_string(range.align) + ")";
    return true;
  }
  return false;
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
    if (lookup_range(gpu_it->second, p, *own, runs, r)) {
      r.explanation += " on " + gpu.describe();
      return r;
    }
    // Squared log2 distances to the tuned shapes of an alignment class this problem may use
    // (logs of the entries taken once, in the constructor: the scan is the lookup's main cost).
    double const lm = std::log2(static_cast<double>(p.m)), ln = std::log2(static_cast<double>(p.n)),
                 lk = std::log2(static_cast<double>(p.k));
    std::vector<std::pair<double, int>> near;
    near.reserve(own->entries.size());
    for (int i : own->entries) {
      auto const& e = table_.entries[static_cast<std::size_t>(i)];
      if (e.problem.align > p.align) continue;
      auto const& l = log_shapes_[static_cast<std::size_t>(i)];
      double const dm = lm - l[0], dn = ln - l[1], dk = lk - l[2];
      near.emplace_back(dm * dm + dn * dn + dk * dk, i);
    }
    // Nearer first; at equal distance the larger alignment class, whose kernels may use wider
    // loads.
    auto const closer = [this](std::pair<double, int> const& a, std::pair<double, int> const& b) {
      if (a.first != b.first) return a.first < b.first;
      return table_.entries[static_cast<std::size_t>(a.second)].problem.align >
             table_.entries[static_cast<std::size_t>(b.second)].problem.align;
    };
    // Whether a kernel runs this problem does not depend on the entry that holds it, and
    // tables repeat kernels across many entries: each kernel is checked once per lookup.
    std::vector<std::pair<KernelConfig const*, bool>> checked;
    auto const runs_once = [&](KernelConfig const& k) {
      for (auto const& [seen, ok] : checked) {
        if (*seen == k) return ok;
      }
      bool const ok = runs(k);
      checked.emplace_back(&k, ok);
      return ok;
    };
    if (cost) {
      std::size_t const keep = std::min<std::size_t>(near.size(), kNearestNeighbours);
      std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(keep), near.end(),
                        closer);
      // Every kernel measured on one of the nearest shapes, its time carried over to this one
      // by the cost model (waves of tiles: what changes most between nearby shapes).
      std::vector<std::pair<KernelConfig const*, double>> cost_here;
      auto const here_of = [&](KernelConfig const& k) {
        for (auto const& [seen, c] : cost_here) {
          if (*seen == k) return c;
        }
        double const c = cost(k, p);
        cost_here.emplace_back(&k, c);
        return c;
      };
      double best_ms = 0.0;
      int best_entry = -1;
      double best_distance = 0.0;
      KernelConfig const* best_kernel = nullptr;
      auto consider = [&](KernelConfig const& k, double measured_ms, int entry, double d) {
        auto const& e = table_.entries[static_cast<std::size_t>(entry)];
        double const here = here_of(k);
        if (!(here > 0.0) || !(measured_ms > 0.0)) return;
        double const there = cost(k, e.problem);
        if (!(there > 0.0)) return;
        double const predicted = measured_ms * here / there;
        if (!std::isfinite(predicted) || (best_kernel && predicted >= best_ms)) return;
        if (!runs_once(k)) return;
        best_ms = predicted;
        best_entry = entry;
        best_distance = d;
        best_kernel = &k;
      };
      for (std::size_t j = 0; j < keep; ++j) {
        auto const [d2, i] = near[j];
        auto const& e = table_.entries[static_cast<std::size_t>(i)];
        double const d = std::sqrt(d2);
        // A vendor pick's figure is cuBLAS's, not a kernel the cost model can carry over: our
        // best kernel of that shape stands in.
        if (!e.vendor()) consider(e.kernel, e.time_ms, i, d);
        else if (e.own) consider(e.own->kernel, e.own->time_ms, i, d);
        for (auto const& a : e.alternatives) consider(a.kernel, e.time_ms / a.relative, i, d);
      }
      if (best_kernel) {
        auto const& e = table_.entries[static_cast<std::size_t>(best_entry)];
        // cuBLAS's figure on that shape, carried over by work: ours must beat it by the margin.
        if (e.cublas_ms) {
          double const vendor_here = *e.cublas_ms * p.flops() / e.problem.flops();
          if (!(best_ms * (1.0 + kVendorMargin) < vendor_here)) {
            r.rule = LookupRule::kNearest;
            r.entry_index = best_entry;
            r.distance = best_distance;
            r.predicted_ms = vendor_here;
            r.kernel = cublas_default();
            r.explanation = "nearest: " + what + " was not tuned on " + gpu.describe() +
                            "; the fastest of our kernels predicted here (" + best_kernel->id() +
                            ", " + fixed(best_ms, 4) + " ms) does not beat cuBLAS (" +
                            fixed(vendor_here, 4) + " ms, carried over from " +
                            e.problem.describe() + ") by more than " +
                            fixed(100.0 * kVendorMargin, 0) + "%: cuBLAS";
            return r;
          }
        }
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
    // Without a cost model (or none it can price): the nearest tuned shape's winner that runs,
    // popped from a heap so only the shapes looked at are ordered.
    auto const farther = [&](std::pair<double, int> const& a, std::pair<double, int> const& b) {
      return closer(b, a);
    };
    std::make_heap(near.begin(), near.end(), farther);
    while (!near.empty()) {
      std::pop_heap(near.begin(), near.end(), farther);
      auto const [d2, i] = near.back();
      near.pop_back();
      auto const& e = table_.entries[static_cast<std::size_t>(i)];
      // Where the nearest shape's pick is the vendor, or ours beat cuBLAS there by less than
      // the margin, cuBLAS (a cuBLASLt algorithm is the choice of its own shape only).
      bool const vendor = e.vendor() || (e.cublas_ms && !(e.time_ms * (1.0 + kVendorMargin) <
                                                          *e.cublas_ms));
      if (!vendor && !runs_once(e.kernel)) continue;
      r.rule = LookupRule::kNearest;
      r.entry_index = i;
      r.distance = std::sqrt(d2);
      r.kernel = vendor ? cublas_default() : e.kernel;
      r.explanation = "nearest: " + what + " was not tuned on " + gpu.describe() +
                      (vendor ? "; the entry for " + e.problem.describe() +
                                    " does not beat cuBLAS by more than " +
                                    fixed(100.0 * kVendorMargin, 0) + "%: cuBLAS"
                              : "; using the entry for " + e.problem.describe()) +
                      " (log2 distance " + fixed(r.distance, 2) + ")";
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
