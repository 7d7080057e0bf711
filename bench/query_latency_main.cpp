// gemmtune_query_latency: how long the lookup chain takes on a large tuning table, with the
// checks and the cost model that `query` and the runtime library pass it. No GPU: the table is
// synthetic (shapes log-uniform in [16, 16384], kernels from a pool of real configs, each entry
// with 8 alternatives), all in one (GPU, precision, layout) bucket, the worst case for the scan.
//   gemmtune_query_latency OUT_STEM [--entries N] [--queries N] [--seed N]
// Writes OUT_STEM.json and OUT_STEM.md and prints the Markdown.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <time.h>

#include <nlohmann/json.hpp>

#include "src/core/gpu_identity.hpp"
#include "src/core/table_lookup.hpp"
#include "src/core/tuning_table.hpp"
#include "src/kernels/family.hpp"

namespace {

using namespace gemmtune;
using Clock = std::chrono::steady_clock;

/// CPU time of the calling thread in µs: what a lookup costs, without the time a busy machine
/// takes the thread off its core.
double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) * 1e-3;
}

/// Kernels the H200 bf16 core-suite search chose or ranked near the top: real ids, so the
/// family checks and the cost model do their real work.
std::vector<std::string> const kPool = {
    "wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1",
    "wgmma:BM=256,BN=128,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1",
    "wgmma:BM=128,BN=256,ST=4,CW=2,CL=1,PE=0,GM=8,SK=1",
    "wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1",
    "wgmma:BM=128,BN=128,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2",
    "wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=1",
    "wgmma:BM=128,BN=64,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2",
    "wgmma:BM=64,BN=128,ST=6,CW=1,CL=2,PE=0,GM=1,SK=1",
    "wgmma:BM=64,BN=64,ST=6,CW=1,CL=1,PE=0,GM=1,SK=1",
    "wgmma:BM=256,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=4",
    "mma:BM=64,BN=64,BK=64,WM=32,WN=32,ST=3,SW=1,SK=8",
    "mma:BM=128,BN=128,BK=32,WM=64,WN=64,ST=4,SW=1,SK=1",
};

struct Options {
  std::string stem;
  int entries = 10000;
  int queries = 10000;
  unsigned seed = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    auto value = [&]() -> int {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      int const v = std::stoi(argv[++i]);
      if (v < 1) throw std::invalid_argument(a + " must be ≥ 1");
      return v;
    };
    if (a == "--entries") {
      o.entries = value();
    } else if (a == "--queries") {
      o.queries = value();
    } else if (a == "--seed") {
      o.seed = static_cast<unsigned>(value());
    } else if (o.stem.empty() && !a.empty() && a[0] != '-') {
      o.stem = a;
    } else {
      throw std::invalid_argument("unknown argument '" + a + "'");
    }
  }
  if (o.stem.empty()) throw std::invalid_argument("no OUT_STEM given");
  return o;
}

/// A bf16 NN problem whose dimensions are multiples of 8 (16-byte aligned rows), log-uniform.
Problem random_problem(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> lg(std::log2(16.0), std::log2(16384.0));
  auto dim = [&] { return std::max<std::int64_t>(8, std::llround(std::exp2(lg(rng)) / 8.0) * 8); };
  Problem p;
  p.m = dim();
  p.n = dim();
  p.k = dim();
  p.precision = Precision::kBF16;
  p.layout = Layout::kNN;
  p.align = 16;
  return p;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  std::size_t const i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

struct Latencies {
  std::vector<double> us;      // wall
  std::vector<double> cpu_us;  // thread CPU time
  int answered = 0;            // lookups that offered a kernel
  nlohmann::json summary() const {
    double sum = 0;
    for (double x : us) sum += x;
    return {{"lookups", us.size()},
            {"answered", answered},
            {"mean_us", sum / static_cast<double>(us.size())},
            {"p50_us", percentile(us, 0.50)},
            {"p99_us", percentile(us, 0.99)},
            {"max_us", percentile(us, 1.0)},
            {"cpu_p50_us", percentile(cpu_us, 0.50)},
            {"cpu_p99_us", percentile(cpu_us, 0.99)},
            {"cpu_max_us", percentile(cpu_us, 1.0)}};
  }
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (std::exception const& e) {
    std::cerr << "gemmtune_query_latency: " << e.what()
              << "\nusage: gemmtune_query_latency OUT_STEM [--entries N] [--queries N] [--seed N]\n";
    return 3;
  }
  GpuIdentity const gpu{"NVIDIA H200", 9, 0, 132};
  DeviceLimits limits = *arch_limits(gpu.arch());
  limits.sm_count = gpu.sm_count;

  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> speed(0.3, 0.9), rel(0.5, 1.0);
  TuningTableBuilder builder("2026-01-01T00:00:00Z");
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> used;
  std::vector<Problem> tuned;
  while (static_cast<int>(tuned.size()) < o.entries) {
    Problem const p = random_problem(rng);
    if (!used.emplace(p.m, p.n, p.k).second) continue;
    std::size_t const k = tuned.size() % kPool.size();
    std::vector<TableAlternative> alts;
    for (std::size_t a = 1; a <= 8; ++a) {
      alts.push_back({parse_kernel_id(kPool[(k + a) % kPool.size()]), rel(rng)});
    }
    double const ms = p.flops() / (speed(rng) * 989e12) * 1e3;
    builder.add_entry(gpu, p, parse_kernel_id(kPool[k]), ms, p.flops() / (ms * 1e-3) / 1e12,
                      std::nullopt, std::nullopt, std::move(alts));
    tuned.push_back(p);
  }

  // Built, written and read back as a deployment would.
  auto const t0 = Clock::now();
  TuningTable const built = builder.build();
  auto const t1 = Clock::now();
  std::filesystem::path const file = o.stem + ".table.json";
  write_tuning_table(built, file);
  auto const t2 = Clock::now();
  TuningTable table = read_tuning_table(file);
  auto const t3 = Clock::now();
  std::uintmax_t const table_bytes = std::filesystem::file_size(file);
  std::filesystem::remove(file);
  TableIndex const index(std::move(table));
  auto const t4 = Clock::now();
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };

  // What `query` and the runtime pass: the correctness checks and the wave model.
  KernelFilter const can_run = [&](KernelConfig const& k, Problem const& q) {
    return runnable_reason(k, q, limits);
  };
  KernelCost const cost = [&](KernelConfig const& k, Problem const& q) {
    return wave_cost(k, q, limits);
  };
  auto measure = [&](std::vector<Problem> const& asks, KernelCost const& model) {
    Latencies l;
    l.us.reserve(asks.size());
    for (Problem const& q : asks) {
      double const ca = thread_cpu_us();
      auto const a = Clock::now();
      LookupResult const r = index.lookup(gpu, q, can_run, model);
      auto const b = Clock::now();
      l.cpu_us.push_back(thread_cpu_us() - ca);
      l.us.push_back(std::chrono::duration<double, std::micro>(b - a).count());
      if (r.kernel) ++l.answered;
    }
    return l;
  };
  std::vector<Problem> untuned, exact;
  while (static_cast<int>(untuned.size()) < o.queries) {
    Problem const p = random_problem(rng);
    if (!used.count({p.m, p.n, p.k})) untuned.push_back(p);
  }
  for (int i = 0; i < o.queries; ++i) exact.push_back(tuned[rng() % tuned.size()]);
  Latencies const nearest = measure(untuned, cost);
  Latencies const nearest_plain = measure(untuned, {});
  Latencies const hits = measure(exact, cost);

  nlohmann::json doc{
      {"entries", o.entries},
      {"queries", o.queries},
      {"seed", o.seed},
      {"table_bytes", table_bytes},
      {"build_ms", ms(t0, t1)},
      {"write_ms", ms(t1, t2)},
      {"read_ms", ms(t2, t3)},
      {"index_ms", ms(t3, t4)},
      {"nearest_with_cost_model", nearest.summary()},
      {"nearest_without_cost_model", nearest_plain.summary()},
      {"exact", hits.summary()}};
  std::ofstream(o.stem + ".json") << doc.dump(2) << "\n";

  auto row = [](std::string const& what, nlohmann::json const& s) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
                  what.c_str(), s["lookups"].get<int>(), s["p50_us"].get<double>(),
                  s["p99_us"].get<double>(), s["max_us"].get<double>(),
                  s["cpu_p50_us"].get<double>(), s["cpu_p99_us"].get<double>(),
                  s["cpu_max_us"].get<double>());
    return std::string(buf);
  };
  std::string md = "# Lookup latency on a table of " + std::to_string(o.entries) + " entries\n\n";
  md += "`gemmtune_query_latency` (seed " + std::to_string(o.seed) + "): one bf16 NN bucket of " +
        std::to_string(o.entries) +
        " H200 entries (log-uniform shapes in [16, 16384], 8 alternatives each), looked up in "
        "process with the family checks and the wave model, as `query` and the runtime do. "
        "Table file " + std::to_string(table_bytes / 1024) + " KiB: read and validated in " +
        std::to_string(static_cast<int>(ms(t2, t3))) + " ms, indexed in " +
        std::to_string(static_cast<int>(ms(t3, t4))) + " ms.\n\n";
  md += "Wall time per lookup, and the thread's CPU time (wall time also counts the time a busy "
        "machine keeps the thread off its core).\n\n";
  md += "| lookups | n | p50 µs | p99 µs | max µs | CPU p50 µs | CPU p99 µs | CPU max µs |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  md += row("untuned shape (nearest, wave model)", doc["nearest_with_cost_model"]);
  md += row("untuned shape (nearest winner, no model)", doc["nearest_without_cost_model"]);
  md += row("tuned shape (exact)", doc["exact"]);
  std::ofstream(o.stem + ".md") << md;
  std::cout << md;
  return 0;
}
