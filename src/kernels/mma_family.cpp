// The mma descriptor: value lists, the constraints that keep a default search to the configs a
// performance engineer would time (by shape class, shared memory, registers), name expressions
// and the launch plan (main kernel over tiles × SK slices; split-K sums in the tile's last slice
// at SK = 2, else in the reduce kernel).
#include "src/kernels/mma_family.hpp"

#include <algorithm>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

constexpr int kWarpSize = 32;
constexpr int kReduceThreads = 256;  // = mma_detail::kReduceThreads
constexpr std::int64_t kMaxReduceBlocks = 4096;
/// SM count assumed when the limits come from the arch table (no device): an H100/H200.
constexpr int kAssumedSmCount = 132;
/// The smallest BN, and the height from which a tile is not "short": never "too big" for a
/// problem, so every shape keeps one. Short tiles (BM = 16, 32) are only for problems that one
/// tile row covers.
constexpr std::int64_t kSmallestTile = 64;
constexpr std::int64_t kShortestTile = 16;  // one m16 fragment

/// The fewest rows a tile of `p` may have: tf32 with A stored K×M reads 8-chunk rows of A
/// (32 elements).
std::int64_t shortest_tile(Problem const& p) {
  return p.precision == Precision::kTF32 && a_transposed(p.layout) ? 32 : kShortestTile;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::string str(std::int64_t v) { return std::to_string(v); }
char const* flag(bool b) { return b ? "true" : "false"; }

int sm_count(DeviceLimits const& limits) {
  return limits.sm_count > 0 ? limits.sm_count : kAssumedSmCount;
}

/// The template's PREC argument.
int prec_code(Precision p) {
  switch (p) {
    case Precision::kFP16: return 0;
    case Precision::kBF16: return 1;
    case Precision::kTF32: return 2;
    default: throw Error("the mma family has no kernel for " + std::string(to_string(p)));
  }
}

/// A grid of 128×128 tiles fills every SM at least twice: the compute-bound class.
bool compute_bound(Problem const& p, DeviceLimits const& l) {
  return ceil_div(p.m, 128) * ceil_div(p.n, 128) >= 2 * sm_count(l);
}

}  // namespace

std::string_view MmaFamily::description() const {
  return "tensor cores via mma.sync (m16n8k16 fp16/bf16, m16n8k8 tf32), ldmatrix, cp.async "
         "ring in XOR-swizzled smem, raster groups, split-K";
}

std::vector<ParamSpec> MmaFamily::params() const {
  return {{"BM", {16, 32, 64, 128, 256}, "rows of C per block"},
          {"BN", {64, 128, 256}, "columns of C per block"},
          {"BK", {16, 32, 64}, "depth of one stage in elements (64 or 128 bytes per row)"},
          {"WM", {16, 32, 64}, "rows of C per warp"},
          {"WN", {32, 64}, "columns of C per warp"},
          {"ST", {2, 3, 4, 5}, "cp.async stages in the shared-memory ring"},
          {"SW", {1, 8}, "rasterization group: tile rows walked together"},
          {"SK", {1, 2, 4, 8}, "split-K slices (FP32 partials, summed by the tile's last slice at 2, else a reduce kernel)"},
          {"CR", {0, 1},
           "split-K sum: 0 = FP32 partials in global memory; 1 (sm_90) = the SK slices of a tile "
           "form a cluster and sum through distributed shared memory in the same launch",
           0}};
}

int MmaFamily::threads(KernelConfig const& cfg) const {
  if (cfg.at("BM") % cfg.at("WM") != 0 || cfg.at("BN") % cfg.at("WN") != 0) return 0;
  return static_cast<int>((cfg.at("BM") / cfg.at("WM")) * (cfg.at("BN") / cfg.at("WN")) *
                          kWarpSize);
}

int MmaFamily::registers_per_thread(KernelConfig const& cfg, Problem const& p) const {
  int const t = threads(cfg);
  if (t <= 0) return 0;
  int r = register_estimate(cfg, p);
  // The template asks ptxas for two blocks per SM (mma_detail::min_blocks) for warp tiles up to
  // 64×32 with 64-byte stage rows, except unaligned tf32, which caps registers at half the file.
  bool const two_blocks = cfg.at("WM") * cfg.at("WN") <= 64 * 32 &&
                          cfg.at("BK") * input_bytes(p.precision) <= 64 &&
                          !(p.precision == Precision::kTF32 && p.align < 16);
  if (two_blocks) r = std::min(r, 65536 / (2 * t) / 8 * 8);
  return r;
}

RooflineTraits MmaFamily::roofline_traits(KernelConfig const& cfg, Problem const& problem) const {
  // mma.sync reaches about 60% of Hopper's wgmma rate (2048 multiply-adds of 16-bit inputs per
  // SM and clock; tf32 half). Shared memory's 128 bytes a clock bound small tiles below that:
  // each warp reads its WM×BK and BK×WN fragments, and cp.async writes the block's tiles once
  // (per multiply-add 1/WM + 1/WN of reads and 1/BM + 1/BN of writes, as wgmma's).
  double const bytes = input_bytes(problem.precision);
  double const peak = (problem.precision == Precision::kTF32 ? 1024.0 : 2048.0) * 0.6;
  auto inverse = [&](char const* name) { return 1.0 / static_cast<double>(cfg.at(name)); };
  double const smem =
      128.0 / (bytes * (inverse("WM") + inverse("WN") + inverse("BM") + inverse("BN")));
  return {.fma_per_clock = std::min(peak, smem),
          .split_sums_on_chip = cfg.get("CR").value_or(0) == 1};
}

std::int64_t MmaFamily::tiles(KernelConfig const& cfg, Problem const& p) {
  return ceil_div(p.m, cfg.at("BM")) * ceil_div(p.n, cfg.at("BN"));
}

int MmaFamily::register_estimate(KernelConfig const& c, Problem const& p) {
  std::int64_t const wm = c.at("WM"), wn = c.at("WN");
  std::int64_t const acc = wm * wn / kWarpSize;
  // Two fragment sets live (step k+1 loads while step k multiplies): 4 registers per 16-row A
  // tile, 2 per 8-column B tile.
  std::int64_t const frags = 2 * ((wm / 16) * 4 + (wn / 8) * 2);
  // Loop state, ring slots, tile origins and per-lane shared offsets, fitted to ptxas on sm_80,
  // sm_86, sm_89 and sm_90: 64×64 warp tiles take 220..244 registers with 16-byte loads, a few
  // more with BK·size = 128 bytes (twice the k steps unrolled per stage). Two warps alone carry
  // a whole tile's loads each (up to 255 and spills), and the scalar fill path of unaligned
  // problems holds each chunk's elements in registers (64×64 warp tiles spill there on sm_90,
  // so it keeps 64×32 and smaller, and two-warp blocks spilled there too). Over 16 chunks per
  // thread cost registers too: tf32 rounded every chunk it copied when this was fitted, and the
  // term stays as an upper bound (256×64 tiles of BK=32 in 4
  // warps spilled on sm_80), and the 16-byte loads of interior tiles spilled 64×64 warp tiles
  // at 20 chunks (256×64 and 64×256 fp16/bf16 tiles of BK=64 in 4 warps, sm_90).
  bool const deep = c.at("BK") * input_bytes(p.precision) == 128;
  bool const scalar = p.align < 16;
  std::int64_t const threads = (c.at("BM") / wm) * (c.at("BN") / wn) * kWarpSize;
  std::int64_t const chunks = (c.at("BM") + c.at("BN")) * c.at("BK") * input_bytes(p.precision) /
                             16 / std::max<std::int64_t>(threads, 1);
  std::int64_t const overhead =
      48 + (deep ? 8 : 0) + (threads < 128 ? 16 : 0) +
      (scalar ? (wm * wn >= 64 * 64 ? 24 : 8) + 2 * std::max<std::int64_t>(0, chunks - 8) +
                    (threads < 128 ? 64 : 0)
              : 0) +
      (scalar && (deep || p.precision == Precision::kTF32) ? 8 : 0) +
      (p.precision == Precision::kTF32 || !scalar ? 2 * std::max<std::int64_t>(0, chunks - 16)
                                                  : 0);
  return static_cast<int>(acc + frags + overhead);
}

std::vector<Constraint> MmaFamily::constraints() const {
  std::vector<Constraint> out;
  out.push_back({"stage_depth", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const bytes = c.at("BK") * input_bytes(p.precision);
                   if (bytes == 64 || bytes == 128) return std::string();
                   return "BK=" + str(c.at("BK")) + " " + std::string(to_string(p.precision)) +
                          " elements are " + str(bytes) +
                          " bytes per row; the family keeps 64 or 128 (whole swizzled bank lines)";
                 }});
  out.push_back({"warp_tiles", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   if (c.at("BM") % c.at("WM") == 0 && c.at("BN") % c.at("WN") == 0) {
                     return std::string();
                   }
                   return "the " + str(c.at("WM")) + "×" + str(c.at("WN")) +
                          " warp tile does not divide the " + str(c.at("BM")) + "×" +
                          str(c.at("BN")) + " block tile";
                 }});
  out.push_back({"block_size", [this](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   int const t = threads(c);
                   if (t >= 64 && t <= 256) return std::string();
                   return str(t) +
                          " threads per block; the family keeps 64 to 256 (2 to 8 warps: fewer "
                          "cannot hide latency, more leave too few registers per thread)";
                 }});
  out.push_back({"tf32_rows", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   // The scalar fragment reads of an MN-major tf32 operand take 8 chunks of one
                   // shared row (the template asserts it).
                   if (c.at("BM") >= shortest_tile(p)) return std::string();
                   return "tf32 with A stored K×M reads A's fragments 8 chunks at a time; BM=" +
                          str(c.at("BM")) + " rows are " + str(c.at("BM") / 4) + " chunks";
                 }});
  out.push_back({"alignment", [](KernelConfig const&, Problem const& p, DeviceLimits const&) {
                   int const eb = input_bytes(p.precision);
                   if (p.align >= eb) return std::string();
                   return "alignment class " + str(p.align) + " bytes is below the " + str(eb) +
                          "-byte " + std::string(to_string(p.precision)) + " element";
                 }});
  out.push_back({"tile_fit", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const bm = c.at("BM"), bn = c.at("BN");
                   if (bm > shortest_tile(p) && p.m <= bm / 2) {
                     return "BM=" + str(bm) + " is over twice M=" + str(p.m) +
                            "; a smaller tile covers it";
                   }
                   if (bn > kSmallestTile && p.n <= bn / 2) {
                     return "BN=" + str(bn) + " is over twice N=" + str(p.n) +
                            "; a smaller tile covers it";
                   }
                   return std::string();
                 },
                 true});
  out.push_back({"short_tile", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   // A tile of 16 or 32 rows is for problems it covers in one tile row: its
                   // A stage shrinks to 2–4 KiB, so the ring holds more of B, which is all
                   // such a problem reads (16×4096×4096 bf16: 11.5–12.1 against 12.8 us for
                   // 64-row tiles, bench/results/2026-11-30-h200-skinny-tiles.md). A taller
                   // problem would re-read B from L2 for every 16 or 32 rows.
                   std::int64_t const bm = c.at("BM"), wm = c.at("WM");
                   if (bm < kSmallestTile && p.m > bm) {
                     return "BM=" + str(bm) + " is for problems one tile row tall; M=" +
                            str(p.m) + " would re-read B for every " + str(bm) + " rows";
                   }
                   if (wm < 32 && bm >= kSmallestTile) {
                     return "WM=" + str(wm) + " warp tiles are for tiles of at most 32 rows; BM=" +
                            str(bm) + " keeps 32 or 64 (more mma per fragment load)";
                   }
                   return std::string();
                 },
                 true});
  out.push_back(
      {"shape_class", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
         std::int64_t const bm = c.at("BM"), bn = c.at("BN"), wm = c.at("WM"), wn = c.at("WN");
         std::int64_t const st = c.at("ST");
         if (compute_bound(p, l)) {
           // Even 128×128 tiles fill the SMs twice: only tiles with enough mma per shared-memory
           // byte (≥ 128×128 block, ≥ 64×32 warp) and a ring deep enough to cover global
           // latency (≥ 3 stages) can approach the tensor-core peak.
           if (bm * bn < 128 * 128 || wm * wn < 64 * 32) {
             return "the " + p.shape() + " grid fills the SMs twice even with 128×128 tiles; " +
                    str(bm) + "×" + str(bn) + " blocks of " + str(wm) + "×" + str(wn) +
                    " warp tiles are below the 128×128 blocks and 64×32 warp tiles that keep "
                    "the tensor cores fed";
           }
           if (st < 3) {
             return "the " + p.shape() +
                    " grid is compute-bound; 2 stages leave part of each step's global latency "
                    "exposed";
           }
           return std::string();
         }
         // Below that the grid, not the mma rate, limits: 2 to 4 stages (5 for short tiles,
         // whose stages are mostly B), and 32×32 warp tiles only where M or N is too small for
         // wider ones to have work.
         if (st > 4 && bm >= kSmallestTile) {
           return "ST=" + str(st) + ": the " + p.shape() +
                  " grid does not fill the SMs twice, so 4 stages already cover the latency";
         }
         if (wm * wn < 32 * 64 && p.m > 64 && p.n > 64) {
           return "a " + str(wm) + "×" + str(wn) + " warp tile issues 8 mma per " +
                  "16 fragment registers; M and N over 64 keep 32×64 or wider busy";
         }
         return std::string();
       },
                 true});
  out.push_back({"stages", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const steps = ceil_div(p.k, c.at("BK") * c.at("SK"));
                   std::int64_t const st = c.at("ST");
                   if (st <= 2 || st - 1 <= steps) return std::string();
                   return "ST=" + str(st) + " keeps " + str(st - 1) +
                          " tiles in flight but each slice has only " + str(steps) +
                          " K steps of BK=" + str(c.at("BK"));
                 },
                 true});
  out.push_back({"raster", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   if (c.at("SW") == 1) return std::string();
                   std::int64_t const tm = ceil_div(p.m, c.at("BM")), tn = ceil_div(p.n, c.at("BN"));
                   if (tm == 1 || tn == 1) {
                     return "SW=" + str(c.at("SW")) + " regroups tile rows, but the grid is " +
                            str(tm) + "×" + str(tn) + " tiles: same order as SW=1";
                   }
                   if (tm * tn <= sm_count(l)) {
                     return str(tm * tn) + " tiles run in one wave on " + str(sm_count(l)) +
                            " SMs; their order (SW=" + str(c.at("SW")) + ") cannot change L2 reuse";
                   }
                   return std::string();
                 },
                 true});
  out.push_back({"split_k", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   std::int64_t const sk = c.at("SK");
                   if (sk == 1) return std::string();
                   std::int64_t const t = tiles(c, p);
                   if (t >= sm_count(l)) {
                     return str(t) + " tiles already cover the " + str(sm_count(l)) +
                            " SMs; SK=" + str(sk) + " would only add a reduction";
                   }
                   std::int64_t const steps = ceil_div(p.k, c.at("BK"));
                   if (steps < 4 * sk) {
                     return "K=" + str(p.k) + " is " + str(steps) + " steps of BK=" +
                            str(c.at("BK")) + ": fewer than 4 per slice for SK=" + str(sk);
                   }
                   return std::string();
                 },
                 true});
  out.push_back({"shared_memory", [this](KernelConfig const& c, Problem const& p,
                                         DeviceLimits const& l) {
                   int const s = smem_bytes(c, p);
                   if (l.max_smem_per_block_optin <= 0 || s <= l.max_smem_per_block_optin) {
                     return std::string();
                   }
                   return str(s) + " bytes of shared memory (" +
                          str(c.at("ST")) + " stages) > the " + str(l.max_smem_per_block_optin) +
                          " bytes a block may opt in to on " + l.arch;
                 }});
  out.push_back({"registers", [this](KernelConfig const& c, Problem const& p,
                                     DeviceLimits const& l) {
                   int const t = std::max(1, threads(c));
                   int const budget = register_budget(l, t);
                   // ptxas for sm_80 needs a few more registers than for sm_86..sm_90 on tf32
                   // 64×64 warp tiles of 128-byte stage rows with both operands K-major (NT):
                   // 255 plus 4 bytes of spill where the others stay within 248.
                   bool const sm80_tf32_nt = l.arch == "sm_80" &&
                                             p.precision == Precision::kTF32 &&
                                             p.layout == Layout::kNT &&
                                             c.at("WM") * c.at("WN") == 64 * 64 &&
                                             c.at("BK") * input_bytes(p.precision) == 128;
                   int const r = register_estimate(c, p) + (sm80_tf32_nt ? 8 : 0);
                   if (r <= budget) return std::string();
                   return "about " + str(r) +
                          " registers per thread (WM·WN/32 accumulators + two fragment sets + "
                          "addresses) > " +
                          str(budget) + " available to each of " + str(t) +
                          " threads; it would spill";
                 }});
  out.push_back({"cluster_reduce", [](KernelConfig const& c, Problem const&,
                                      DeviceLimits const& l) {
                   if (c.at("CR") == 0) return std::string();
                   if (c.at("SK") == 1) {
                     return std::string("CR=1 sums split-K slices in a cluster, but SK=1 has none");
                   }
                   int const a = arch_number(l.arch);
                   if (a != 0 && a < 90) {
                     return "CR=1 needs thread-block clusters (sm_90), not " + l.arch;
                   }
                   if (c.at("BM") % c.at("SK") != 0) {
                     return "CR=1 gives each of the SK=" + str(c.at("SK")) +
                            " blocks of a cluster BM/SK rows to sum; BM=" + str(c.at("BM")) +
                            " does not divide";
                   }
                   return std::string();
                 }});
  out.push_back({"cluster_reduce_shape",
                 [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   // Where one tile row covers M the slices' partials are the traffic that
                   // matters beside B; on taller grids they are a small share. SK = 2 already
                   // sums in its last slice within the launch.
                   if (c.at("CR") == 0) return std::string();
                   if (c.at("SK") == 2) {
                     return std::string("SK=2 already sums in the tile's last slice within the "
                                        "launch; CR=1 is searched for SK=4 and 8");
                   }
                   if (ceil_div(p.m, c.at("BM")) == 1) return std::string();
                   return "CR=1 is searched where one tile row covers M; M=" + str(p.m) +
                          " takes " + str(ceil_div(p.m, c.at("BM"))) + " of BM=" +
                          str(c.at("BM"));
                 },
                 true});
  out.push_back({"grid_size", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const t = tiles(c, p);
                   if (t <= kMaxGridX) return std::string();
                   return "ceil(M/" + str(c.at("BM")) + ")·ceil(N/" + str(c.at("BN")) + ") = " +
                          str(t) + " blocks > the grid limit " + str(kMaxGridX);
                 }});
  return out;
}

std::string MmaFamily::main_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);  // only declared integers reach the source
  Problem const p = problem.resolved();
  std::string s = canon.at("CR") == 1 ? "gemmtune::mma_gemm_cluster<" : "gemmtune::mma_gemm<";
  s += template_arguments(canon);
  s += std::to_string(prec_code(p.precision)) + "," + flag(a_transposed(p.layout)) + "," +
       flag(b_transposed(p.layout)) + "," + std::to_string(p.align >= 16 ? 16 : p.align) + ">";
  return s;
}

std::string MmaFamily::reduce_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  return "gemmtune::mma_reduce<" + std::to_string(canon.at("SK")) + "," +
         std::to_string(prec_code(problem.precision)) + ">";
}

std::int64_t MmaFamily::workspace_bytes(KernelConfig const& cfg, Problem const& problem) {
  std::int64_t const sk = cfg.at("SK");
  return sk == 1 || cfg.at("CR") == 1 ? 0 : sk * problem.m * problem.n * 4;
}

CompileRequest MmaFamily::compile_request(KernelConfig const& cfg, Problem const& problem,
                                          std::string const& arch) const {
  std::vector<std::string> names = {main_expression(cfg, problem)};
  KernelConfig const canon = canonical(cfg);
  std::int64_t const sk = canon.at("SK");
  if (sk > 1 && canon.at("CR") == 0 && !last_slice_sums(sk)) {
    names.push_back(reduce_expression(cfg, problem));
  }
  return embedded_request(template_file(), std::move(names), arch);
}

LaunchPlan MmaFamily::launch_plan(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  Problem const p = problem.resolved();
  LaunchPlan plan;
  KernelLaunch main;
  main.name_expression = main_expression(canon, p);
  main.grid = Dim3{tiles(canon, p), 1, canon.at("SK")};
  main.block = Dim3{threads(canon), 1, 1};
  main.dynamic_smem = smem_bytes(canon, p);  // the template's ring is extern shared memory
  main.waits_for_prior_grids = true;
  plan.launches.push_back(std::move(main));
  std::int64_t const sk = canon.at("SK");
  if (sk > 1 && canon.at("CR") == 0) {
    plan.workspace_bytes = workspace_bytes(canon, p);
    if (last_slice_sums(sk)) {
      plan.counter_bytes = tiles(canon, p) * 4;  // one unsigned per tile
    } else {
      KernelLaunch reduce;
      reduce.name_expression = reduce_expression(canon, p);
      reduce.grid = Dim3{
          std::clamp<std::int64_t>(ceil_div(p.m * p.n, kReduceThreads), 1, kMaxReduceBlocks), 1,
          1};
      reduce.block = Dim3{kReduceThreads, 1, 1};
      reduce.waits_for_prior_grids = true;
      plan.launches.push_back(std::move(reduce));
    }
  }
  return plan;
}

int MmaFamily::smem_bytes(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const c = canonical(cfg);
  std::int64_t const stage =
      c.at("BK") * (c.at("BM") + c.at("BN")) * input_bytes(problem.precision);
  // The ring, or with CR = 1 the staged FP32 tile (rows of mma_detail::reduce_stride(BN) =
  // BN + 8 floats) if that is larger.
  std::int64_t const staged = c.at("CR") == 1 ? c.at("BM") * (c.at("BN") + 8) * 4 : 0;
  return static_cast<int>(std::max(c.at("ST") * stage, staged));
}

Family const& mma_family() {
  static MmaFamily const family;
  return family;
}

}  // namespace gemmtune
