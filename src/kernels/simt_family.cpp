// The simt descriptor: value lists, the constraints that keep a default search to the configs
// a performance engineer would time, name expressions and the launch plan (main kernel over
// tiles × SK slices; a reduce kernel after RED=1's atomics, or after RED=0's partials when SK > 2).
#include "src/kernels/simt_family.hpp"

#include <algorithm>


namespace gemmtune {
namespace {

constexpr int kWarpSize = 32;
constexpr int kReduceThreads = 256;  // = simt_detail::kReduceThreads
constexpr std::int64_t kMaxReduceBlocks = 4096;
/// SM count assumed when the limits come from the arch table (no device): an H100/H200.
constexpr int kAssumedSmCount = 132;
/// Problems with M up to this are memory-bound and take the small-M tiles.
constexpr std::int64_t kSmallM = 64;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::string str(std::int64_t v) { return std::to_string(v); }

std::int64_t lanes_m(KernelConfig const& c) { return c.at("LL") % 2 == 0 ? 4 : 8; }
std::int64_t lanes_n(KernelConfig const& c) { return kWarpSize / lanes_m(c); }

int sm_count(DeviceLimits const& limits) {
  return limits.sm_count > 0 ? limits.sm_count : kAssumedSmCount;
}

/// Floats of one pipeline stage: BK rows of BM (A) and BN (B); the operand transposed on its
/// way in gets 4 floats of padding per row under CURE=1.
std::int64_t stage_floats(KernelConfig const& c, Problem const& p) {
  std::int64_t const pad = c.at("CURE") == 1 ? 4 : 0;
  bool const a_trans = !a_transposed(p.layout), b_trans = b_transposed(p.layout);
  return c.at("BK") * (c.at("BM") + (a_trans ? pad : 0) + c.at("BN") + (b_trans ? pad : 0));
}

char const* flag(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string_view SimtFamily::description() const {
  return "FP32 on CUDA cores: block/warp/4×4 sub-block tiling, float4 and LDS.128, conflict "
         "cures, register double buffer or cp.async stages, raster groups, split-K";
}

std::vector<ParamSpec> SimtFamily::params() const {
  return {{"BM", {16, 64, 128, 256}, "rows of C per block (16: the small-M path, M ≤ 64)"},
          {"BN", {64, 128, 256}, "columns of C per block"},
          {"BK", {8, 16}, "depth of the K slice staged per step"},
          {"TM", {4, 8}, "rows of C per thread: TM/4 sub-blocks of 4 rows"},
          {"TN", {4, 8, 16}, "columns of C per thread: TN/4 sub-blocks of 4 columns"},
          {"LL", {0, 1, 2, 3},
           "lane layout of a warp: 0 = 4×8, 1 = 8×4 (row-major), 2 = 4×8, 3 = 8×4 (Z-order)"},
          {"CURE", {0, 1, 2},
           "bank-conflict cure of the transposed operand: 0 none, 1 padding, 2 XOR swizzle"},
          {"ST", {1, 2, 3, 4}, "shared-memory stages (1 = single buffer)"},
          {"CP", {0, 1}, "0 = register-staged loads, 1 = cp.async (sm_80+, ST ≥ 2)"},
          {"SW", {1, 8}, "rasterization group: tile rows walked together"},
          {"SK", {1, 2, 4, 8, 16}, "split-K slices"},
          {"RED", {0, 1}, "split-K reduction: 0 partials (summed by the tile's last slice at SK=2, else a reduce kernel), 1 atomics + finalize"}};
}

std::int64_t SimtFamily::warp_m(KernelConfig const& cfg) { return lanes_m(cfg) * cfg.at("TM"); }
std::int64_t SimtFamily::warp_n(KernelConfig const& cfg) { return lanes_n(cfg) * cfg.at("TN"); }

int SimtFamily::threads(KernelConfig const& cfg) const {
  std::int64_t const wm = warp_m(cfg), wn = warp_n(cfg);
  if (cfg.at("BM") % wm != 0 || cfg.at("BN") % wn != 0) return 0;
  return static_cast<int>((cfg.at("BM") / wm) * (cfg.at("BN") / wn) * kWarpSize);
}

int SimtFamily::registers_per_thread(KernelConfig const& cfg, Problem const&) const {
  return register_estimate(cfg);
}

RooflineTraits SimtFamily::roofline_traits(KernelConfig const& cfg, Problem const&) const {
  // 128 FP32 FMA per SM and clock; each thread reads TM + TN operands from shared memory per
  // k step for TM·TN multiply-adds, and shared memory gives 32 words a clock.
  double const tm = static_cast<double>(cfg.at("TM")), tn = static_cast<double>(cfg.at("TN"));
  return {.fma_per_clock = std::min(128.0, 32.0 * tm * tn / (tm + tn))};
}

std::int64_t SimtFamily::tiles(KernelConfig const& cfg, Problem const& p) {
  return ceil_div(p.m, cfg.at("BM")) * ceil_div(p.n, cfg.at("BN"));
}

int SimtFamily::register_estimate(KernelConfig const& c) {
  std::int64_t const t = std::max<std::int64_t>(1, [&] {
    std::int64_t const wm = warp_m(c), wn = warp_n(c);
    return (c.at("BM") / wm) * (c.at("BN") / wn) * kWarpSize;
  }());
  std::int64_t const tm = c.at("TM"), tn = c.at("TN");
  // Register-staged loads hold one tile's share per thread between the LDG and the STS, and
  // the loop keeps addresses for both its unchecked (inner blocks) and checked loads: counted
  // twice, fitted to ptxas on sm_90, where 128×128×16 blocks of 8×16 thread tiles reach 255
  // registers (a spill seen once) and 128×256×16 ones 254.
  std::int64_t const staged =
      c.at("CP") == 0 ? 2 * ceil_div((c.at("BM") + c.at("BN")) * c.at("BK"), t) : 0;
  // cp.async keeps a 64-bit source address and a predicate per copy it issues per stage (4-byte
  // copies for the transposed operand, 16-byte ones for the other), about 3 registers each,
  // plus ring indices and shared addresses; fitted to ptxas on sm_90, where 8×16 thread tiles
  // spill with cp.async and fit with register staging.
  std::int64_t const copies =
      c.at("CP") == 1 ? ceil_div(c.at("BM") * c.at("BK"), t) +
                            ceil_div(c.at("BN") * c.at("BK"), 4 * t) + 10
                      : 0;
  // Fragments of the next k are loaded while this k's FFMAs run, so two sets are live.
  return static_cast<int>(tm * tn + 2 * (tm + tn) + staged + 3 * copies + 28);
}

std::vector<Constraint> SimtFamily::constraints() const {
  std::vector<Constraint> out;
  out.push_back({"pipeline", [](KernelConfig const& c, Problem const&, DeviceLimits const& l) {
                   std::int64_t const st = c.at("ST"), cp = c.at("CP");
                   if (cp == 0 && st > 2) {
                     return "register-staged loads (CP=0) use ST=1 or 2 buffers, not ST=" +
                            str(st);
                   }
                   if (cp == 1 && st < 2) {
                     return std::string("cp.async (CP=1) needs ST ≥ 2 stages to overlap");
                   }
                   if (int const a = arch_number(l.arch); cp == 1 && a != 0 && a < 80) {
                     return "cp.async (CP=1) needs sm_80 or newer, not " + l.arch;
                   }
                   return std::string();
                 }});
  out.push_back({"warp_tiles", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   std::int64_t const wm = warp_m(c), wn = warp_n(c);
                   if (c.at("BM") % wm == 0 && c.at("BN") % wn == 0) return std::string();
                   return "the " + str(wm) + "×" + str(wn) + " warp tile (" + str(lanes_m(c)) +
                          "×" + str(lanes_n(c)) + " lanes of " + str(c.at("TM")) + "×" +
                          str(c.at("TN")) + ") does not divide the " + str(c.at("BM")) + "×" +
                          str(c.at("BN")) + " block tile";
                 }});
  out.push_back({"block_size", [this](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   int const t = threads(c);
                   if (t >= 64 && t <= 256) return std::string();
                   return str(t) +
                          " threads per block; the family keeps 64 to 256 (fewer cannot hide "
                          "latency, more measured slower on H200)";
                 },
                 true});
  out.push_back(
      {"tile_fit", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
         std::int64_t const bm = c.at("BM"), bn = c.at("BN");
         if (bm == 16 && p.m > kSmallM) {
           return "BM=16 is the small-M path (M ≤ " + str(kSmallM) + "), not M=" + str(p.m);
         }
         if (bm > 16 && p.m <= bm / 2) {
           return "BM=" + str(bm) + " is over twice M=" + str(p.m) + "; a smaller tile covers it";
         }
         if (bn > 64 && p.n <= bn / 2) {
           return "BN=" + str(bn) + " is over twice N=" + str(p.n) + "; a smaller tile covers it";
         }
         return std::string();
       },
       true});
  out.push_back(
      {"thread_tile", [this](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
         // Pruning by shape class. Small M is memory-bound: anything goes. When even 128×128
         // tiles fill the SMs twice, only big tiles with ≥ 64 outputs per thread in ≥ 4 warps
         // and a pipelined K loop can reach the FFMA roofline; otherwise ≥ 32 outputs.
         std::int64_t const tm = c.at("TM"), tn = c.at("TN");
         if (p.m <= kSmallM) return std::string();
         if (tn > 2 * tm || tm > 2 * tn) {
           return "a " + str(tm) + "×" + str(tn) +
                  " thread tile loads more fragments per FFMA than a squarer one of its size";
         }
         bool const large = ceil_div(p.m, 128) * ceil_div(p.n, 128) >= 2 * sm_count(l);
         if (!large) {
           if (tm * tn >= 32) return std::string();
           return "a " + str(tm) + "×" + str(tn) +
                  " thread tile reads 8 floats from shared memory per 16 FFMA: too few for M=" +
                  str(p.m) + " (4×4 is kept for M ≤ " + str(kSmallM) + ")";
         }
         if (c.at("BM") < 128 || c.at("BN") < 128 || tm * tn < 64 || threads(c) < 128) {
           return "the " + p.shape() + " grid fills the SMs twice even with 128×128 tiles; " +
                  str(c.at("BM")) + "×" + str(c.at("BN")) + " tiles of " + str(tm) + "×" +
                  str(tn) + " per thread in " + str(threads(c)) +
                  " threads are below the 128×128, 64 outputs, 4 warps that reach the roofline";
         }
         if (c.at("ST") == 1) {
           return "the " + p.shape() +
                  " grid is compute-bound; a single buffer (ST=1) leaves every step's global "
                  "latency exposed";
         }
         return std::string();
       },
       true});
  out.push_back({"cure", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (c.at("CURE") == 0 || !a_transposed(p.layout) || b_transposed(p.layout)) {
                     return std::string();
                   }
                   return "layout " + std::string(to_string(p.layout)) +
                          " stores both operands k-major already: no transposing store for "
                          "CURE=" +
                          str(c.at("CURE")) + " to cure";
                 },
                 true});
  out.push_back({"raster", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const tm = ceil_div(p.m, c.at("BM")), tn = ceil_div(p.n, c.at("BN"));
                   if (c.at("SW") == 1 || (tm > 1 && tn > 1)) return std::string();
                   return "SW=" + str(c.at("SW")) + " regroups tile rows, but the grid is " +
                          str(tm) + "×" + str(tn) + " tiles: same order as SW=1";
                 },
                 true});
  out.push_back({"split_k_reduction",
                 [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   if (c.at("SK") > 1 || c.at("RED") == 0) return std::string();
                   return std::string("RED=1 chooses the split-K reduction, but SK=1 has none");
                 }});
  out.push_back(
      {"split_k", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
         std::int64_t const sk = c.at("SK"), bk = c.at("BK");
         if (sk == 1) return std::string();
         std::int64_t const t = tiles(c, p);
         if (t >= sm_count(l)) {
           return str(t) + " tiles already cover the " + str(sm_count(l)) +
                  " SMs; SK=" + str(sk) + " would only add a reduction";
         }
         std::int64_t const steps = ceil_div(p.k, bk);
         if (steps < 4 * sk) {
           return "K=" + str(p.k) + " is " + str(steps) + " steps of BK=" + str(bk) +
                  ": fewer than 4 per slice for SK=" + str(sk);
         }
         return std::string();
       },
       true});
  out.push_back({"registers", [this](KernelConfig const& c, Problem const&, DeviceLimits const& l) {
                   int const t = std::max(1, threads(c));
                   int const budget = register_budget(l, t);
                   int const r = register_estimate(c);
                   if (r <= budget) return std::string();
                   return "about " + str(r) +
                          " registers per thread (TM·TN accumulators + two fragment sets + "
                          "2 per staged load + 3 per cp.async + 28) > " +
                          str(budget) + " available to each of " + str(t) +
                          " threads; it would spill";
                 }});
  out.push_back({"grid_size", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const t = tiles(c, p);
                   if (t <= kMaxGridX) return std::string();
                   return "ceil(M/" + str(c.at("BM")) + ")·ceil(N/" + str(c.at("BN")) + ") = " +
                          str(t) + " blocks > the grid limit " + str(kMaxGridX);
                 }});
  return out;
}

std::string SimtFamily::main_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);  // only declared integers reach the source
  Problem const p = problem.resolved();
  std::string s = "gemmtune::simt<";
  s += template_arguments(canon);
  s += std::string(flag(a_transposed(p.layout))) + "," + flag(b_transposed(p.layout)) + "," +
       flag(p.align >= 16) + ">";
  return s;
}

std::string SimtFamily::reduce_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  std::int64_t const slices = canon.at("RED") == 1 ? 1 : canon.at("SK");
  return "gemmtune::simt_reduce<" + std::to_string(slices) + "," +
         flag(problem.resolved().align >= 16) + ">";
}

std::int64_t SimtFamily::workspace_bytes(KernelConfig const& cfg, Problem const& problem) {
  std::int64_t const sk = cfg.at("SK");
  if (sk == 1) return 0;
  std::int64_t const slices = cfg.at("RED") == 1 ? 1 : sk;
  return slices * problem.m * ceil_div(problem.n, 4) * 4 * 4;
}

CompileRequest SimtFamily::compile_request(KernelConfig const& cfg, Problem const& problem,
                                           std::string const& arch) const {
  std::vector<std::string> names = {main_expression(cfg, problem)};
  std::int64_t const sk = cfg.at("SK");
  if (sk > 1 && (cfg.at("RED") == 1 || !last_slice_sums(sk))) {
    names.push_back(reduce_expression(cfg, problem));
  }
  return embedded_request(template_file(), std::move(names), arch);
}

LaunchPlan SimtFamily::launch_plan(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  Problem const p = problem.resolved();
  LaunchPlan plan;
  KernelLaunch main;
  main.name_expression = main_expression(canon, p);
  main.grid = Dim3{tiles(canon, p), 1, canon.at("SK")};
  main.block = Dim3{threads(canon), 1, 1};
  int const smem = smem_bytes(canon, p);
  main.dynamic_smem = smem > kSmemWithoutOptIn ? smem : 0;
  main.waits_for_prior_grids = true;
  plan.launches.push_back(std::move(main));
  if (canon.at("SK") > 1) {
    plan.workspace_bytes = workspace_bytes(canon, p);
    if (canon.at("RED") == 0 && last_slice_sums(canon.at("SK"))) {
      plan.counter_bytes = tiles(canon, p) * 4;  // one unsigned per tile
    } else {
      KernelLaunch reduce;
      reduce.name_expression = reduce_expression(canon, p);
      std::int64_t const vecs = p.m * ceil_div(p.n, 4);
      reduce.grid = Dim3{
          std::clamp<std::int64_t>(ceil_div(vecs, kReduceThreads), 1, kMaxReduceBlocks), 1, 1};
      reduce.block = Dim3{kReduceThreads, 1, 1};
      reduce.waits_for_prior_grids = true;
      plan.launches.push_back(std::move(reduce));
      plan.zero_workspace = canon.at("RED") == 1;  // atomics accumulate into zeros
    }
  }
  return plan;
}

int SimtFamily::smem_bytes(KernelConfig const& cfg, Problem const& problem) const {
  return static_cast<int>(cfg.at("ST") * stage_floats(cfg, problem.resolved()) * 4);
}

Family const& simt_family() {
  static SimtFamily const family;
  return family;
}

}  // namespace gemmtune
