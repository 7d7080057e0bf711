// The wgmma descriptor: value lists, the constraints that keep a default search to the configs
// worth timing on Hopper, name expressions, and the launch plan (TMA descriptors for A and B,
// the main kernel over work units or a persistent grid of clusters, whole units or stream-K
// shares of their k blocks; split-K sums in the last slice of each tile at SK = 2, else in the
// reduce kernel).
#include "src/kernels/wgmma_family.hpp"

#include <algorithm>
#include <numeric>

#include "src/core/error.hpp"
#include "src/core/tensor_map_geometry.hpp"

namespace gemmtune {
namespace {

constexpr int kReduceThreads = 256;    // = wgmma_detail::kReduceThreads
constexpr int kTransposeTile = 32;     // = wgmma_detail::kTransposeTile
constexpr std::int64_t kMaxReduceBlocks = 4096;

constexpr int kWarpgroup = 128;
constexpr int kSwizzleBytes = 128;  // TMA swizzle and one shared-memory row of every box
constexpr int kSwizzleAtom = 1024;  // = wgmma_detail::kSwizzleAtom: base alignment slack
constexpr int kMnChunk = 64;        // 16-bit elements of an MN-major box row
constexpr int kMaxAccumulators = 128;  // floats per consumer thread under setmaxnreg 224
// Block-scaled FP8 holds a K block's products beside the sums: both sets together, per thread.
constexpr int kMaxBlockScaledAccumulators = 160;
constexpr std::int64_t kMinStages = 3;  // the ST value list's first
/// The longest M the search times swapped operands for: beyond it 64- or 128-row tiles waste a
/// small share of their rows.
constexpr std::int64_t kMaxSwappedM = 256;
/// The deepest ring the search times. Deeper ones (to 8: the vendor's 64-wide tiles keep 8
/// stages in flight) run when named; the stages rule keeps only the deepest ring that fits,
/// so raising this would replace every measured ring depth of the search at once.
constexpr std::int64_t kMaxStages = 6;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }
std::string str(std::int64_t v) { return std::to_string(v); }
char const* flag(bool b) { return b ? "true" : "false"; }

int sm_count(DeviceLimits const& limits) {
  return limits.sm_count > 0 ? limits.sm_count : WgmmaFamily::kPersistentSms;
}

/// The problem the tiles of `c` cover, resolved: the caller's, or with SW = 1 its transpose
/// (Problem::transposed), which the kernel computes from the same storage. Every rule and
/// geometry below reads this one; the public functions of WgmmaFamily frame the caller's
/// problem with it once.
Problem kernel_problem(KernelConfig const& c, Problem const& problem) {
  Problem const p = problem.resolved();
  return WgmmaFamily::swaps_operands(c) ? p.transposed() : p;
}

std::int64_t tile_count(KernelConfig const& c, Problem const& kp) {
  return ceil_div(kp.m, c.at("BM")) * ceil_div(kp.n, c.at("BN"));
}

/// = WgmmaFamily::units over the kernel's problem.
std::int64_t unit_count(KernelConfig const& c, Problem const& kp) {
  std::int64_t const cl = c.at("CL"), tm = ceil_div(kp.m, c.at("BM")),
                     tn = ceil_div(kp.n, c.at("BN"));
  std::int64_t const unit_rows = WgmmaFamily::shares_b_tiles(c) ? ceil_div(tm, cl) : tm;
  std::int64_t const unit_cols = WgmmaFamily::shares_a_tiles(c) ? ceil_div(tn, cl) : tn;
  return unit_rows * unit_cols * c.at("SK");
}

/// The template's element-type code (wgmma_detail::ElementType).
int element_code(Precision p) {
  switch (p) {
    case Precision::kFP16: return 0;
    case Precision::kBF16: return 1;
    case Precision::kTF32: return 2;
    case Precision::kE4M3: return 3;
    case Precision::kE4M3Row: return 4;
    case Precision::kE4M3Blk: return 5;
    case Precision::kE5M2: return 6;
    case Precision::kE5M2Row: return 7;
    case Precision::kE5M2Blk: return 8;
    case Precision::kFP32: break;
  }
  throw Error("wgmma has no element type for " + std::string(to_string(p)));
}

/// tf32 and FP8 wgmma read shared memory K-major only: an operand stored MN-major (A as K×M,
/// B as K×N) is first copied K-major into the workspace (wgmma_kmajor_copy).
bool kmajor_only(Precision p) { return p == Precision::kTF32 || is_fp8(p); }
bool a_copied(Problem const& p) { return kmajor_only(p.precision) && a_transposed(p.layout); }
bool b_copied(Problem const& p) { return kmajor_only(p.precision) && !b_transposed(p.layout); }
bool sixteen_bit(Problem const& p) {
  return p.precision == Precision::kFP16 || p.precision == Precision::kBF16;
}
/// 16-bit operands below 16-byte alignment: the plan first copies every operand TMA cannot read
/// in place into the workspace with padded rows (wgmma_padded_copy decides per launch, as the
/// descriptor encoding does), keeping its orientation. tf32 and FP8 have no such path.
bool copies_unaligned(Problem const& p) { return p.align < 16 && sixteen_bit(p); }
/// The plan runs the padded copy: for operands below 16-byte alignment, or (RP = 128) also for
/// 16-bit rows a multiple of 16 bytes apart but not of 128, which TMA reads in place only by
/// splitting each box row that straddles two lines into several L2 requests.
bool padded(KernelConfig const& c, Problem const& p) {
  return copies_unaligned(p) || (c.at("RP") == 128 && sixteen_bit(p));
}
/// Whether a packed operand of `p` has rows a multiple of 16 bytes apart but not of 128: what
/// RP = 128 copies (stored columns of 16-bit elements, the row stride of a packed matrix).
bool straddles_lines(Problem const& p) {
  for (TmaOperand const op : {TmaOperand::kA, TmaOperand::kB}) {
    std::int64_t const row_bytes = stored_extent(op, p).cols * input_bytes(p.precision);
    if (row_bytes % 16 == 0 && row_bytes % 128 != 0) return true;
  }
  return false;
}

/// A is MN-major in shared memory when the main kernel reads it stored K×M; B when K×N.
bool a_mn_major(Problem const& p) { return a_transposed(p.layout) && !a_copied(p); }
bool b_mn_major(Problem const& p) { return !b_transposed(p.layout) && !b_copied(p); }

/// = tile_schedule::stream_owner: the share of `shares` that holds k block i of `total`.
std::int64_t stream_owner(std::int64_t i, std::int64_t total, std::int64_t shares) {
  return ((i + 1) * shares + total - 1) / total - 1;
}

/// Stream-K over the kernel's problem: the most shares that hold k blocks of one unit. As the
/// kernel does, the clusters that share them are the grid's, or the k blocks if fewer.
std::int64_t stream_slices_of(KernelConfig const& c, Problem const& kp) {
  if (!WgmmaFamily::streams_k(c)) return 1;
  std::int64_t const units = unit_count(c, kp);
  std::int64_t const kb = ceil_div(kp.k, WgmmaFamily::block_k(kp.precision));
  std::int64_t const total = units * kb;
  std::int64_t const shares =
      std::min<std::int64_t>(WgmmaFamily::kPersistentSms / c.at("CL"), total);
  std::int64_t most = 1;
  for (std::int64_t u = 0; u < units; ++u) {
    most = std::max(most, stream_owner(u * kb + kb - 1, total, shares) -
                              stream_owner(u * kb, total, shares) + 1);
  }
  return most;
}

/// Bytes of split-K partials: SK slices (stream-K: the most a unit is cut into) of M rows of
/// round_up(N, 4) floats.
std::int64_t partial_bytes(KernelConfig const& cfg, Problem const& p) {
  std::int64_t const slices =
      WgmmaFamily::streams_k(cfg) ? stream_slices_of(cfg, p) : cfg.at("SK");
  return slices == 1 ? 0 : slices * p.m * round_up(p.n, 4) * 4;
}
/// = wgmma_detail::kmajor_copy_offsets: the K-major copies follow the partials, each on a
/// 128-byte boundary, A's before B's.
std::int64_t copy_offset_a(KernelConfig const& cfg, Problem const& p) {
  return round_up(partial_bytes(cfg, p), 128);
}
std::int64_t copy_offset_b(KernelConfig const& cfg, Problem const& p) {
  return copy_offset_a(cfg, p) +
         (a_copied(p) ? round_up(p.m * kmajor_copy_ld(p) * input_bytes(p.precision), 128) : 0);
}
/// = wgmma_detail::padded_copy_offsets: the padded copies follow the partials, each on a
/// 128-byte boundary, A's before B's; space for both, whichever a launch needs.
std::int64_t padded_offset_a(KernelConfig const& cfg, Problem const& p) {
  return round_up(partial_bytes(cfg, p), 128);
}
std::int64_t padded_copy_bytes(TmaOperand operand, Problem const& p) {
  return stored_extent(operand, p).rows * padded_copy_ld(operand, p) * input_bytes(p.precision);
}
std::int64_t padded_offset_b(KernelConfig const& cfg, Problem const& p) {
  return padded_offset_a(cfg, p) + round_up(padded_copy_bytes(TmaOperand::kA, p), 128);
}
// = wgmma_detail::kPadThreads, kPadChunk: one block per 2048 elements of a stored row.
constexpr int kPadThreads = 256;
constexpr std::int64_t kPadChunk = 2048;
std::int64_t padded_copy_blocks(TmaOperand operand, Problem const& p) {
  StoredExtent const e = stored_extent(operand, p);
  return e.rows * ceil_div(e.cols, kPadChunk);
}

// = wgmma_detail's: the K-major copy turns 32×32 blocks, copy_batch() of them (adjacent along
// the copy's rows) per block of 256 threads, through as many padded tiles of shared memory.
constexpr int kCopyTile = 32;
constexpr int kCopyThreads = 256;
/// Thread blocks per SM below which four 32×32 blocks per thread block leave the SMs short of
/// work: then each thread block moves one.
constexpr std::int64_t kCopyMinBlocksPerSm = 4;
std::int64_t copy_rows(Problem const& p) {
  return (a_copied(p) ? round_up(p.m, kCopyTile) : 0) + (b_copied(p) ? round_up(p.n, kCopyTile) : 0);
}
/// 32×32 blocks per thread block of the copy: 4 (all loads in flight before the turn) where the
/// copies are large enough to still give every SM kCopyMinBlocksPerSm thread blocks, else 1.
int copy_batch(Problem const& p) {
  std::int64_t const blocks = copy_rows(p) / kCopyTile * ceil_div(p.k, kCopyTile);
  return blocks >= 4 * kCopyMinBlocksPerSm * WgmmaFamily::kPersistentSms ? 4 : 1;
}

/// Rows of 128 bytes an operand tile of X rows/columns takes per stage (MN-major tiles are
/// loaded as whole 64-wide boxes).
std::int64_t tile_rows(std::int64_t x, bool mn_major) {
  return mn_major ? round_up(x, kMnChunk) : x;
}

/// = wgmma_detail::splits_columns: two consumer warpgroups on a 64-row tile each take all its
/// rows and half its columns (BM/CW = 32 rows would be no wgmma).
bool splits_columns(KernelConfig const& c) {
  return c.at("BM") == 64 && c.at("CW") == 2 && c.at("PE") != 2;
}

/// Rows of C one consumer warpgroup computes: BM/CW, or all BM in ping-pong (PE = 2), where
/// the two warpgroups take whole tiles in turn, and where they split the columns.
std::int64_t warpgroup_rows(KernelConfig const& c) {
  return c.at("PE") == 2 || splits_columns(c) ? c.at("BM") : c.at("BM") / c.at("CW");
}

/// Columns of C one consumer warpgroup computes (its wgmma N): BN, or BN/2 split.
std::int64_t warpgroup_cols(KernelConfig const& c) {
  return splits_columns(c) ? c.at("BN") / 2 : c.at("BN");
}

/// FP32 accumulators a consumer thread holds: (rows/64 m64 blocks) × (columns/2).
std::int64_t accumulators_per_thread(KernelConfig const& c) {
  return warpgroup_rows(c) / 64 * (warpgroup_cols(c) / 2);
}

/// Large problems fill the SMs twice even with 128×128 tiles: compute-bound.
bool compute_bound(Problem const& p, DeviceLimits const& l) {
  return ceil_div(p.m, 128) * ceil_div(p.n, 128) >= 2 * sm_count(l);
}

/// = WgmmaFamily::smem_bytes (free, so constraints need not hold the family).
int ring_smem_bytes(KernelConfig const& cfg, Problem const& problem) {
  Problem const p = problem.resolved();
  std::int64_t const stage =
      (tile_rows(cfg.at("BM"), a_mn_major(p)) + tile_rows(cfg.at("BN"), b_mn_major(p))) *
      kSwizzleBytes;
  // = wgmma_detail::smem_bytes: alignment slack, the ring, the C staging boxes (EP per consumer
  // warpgroup, each its rows × 128 bytes), 2·ST mbarriers of 8 bytes.
  std::int64_t const staging = cfg.at("CW") * cfg.at("EP") * warpgroup_rows(cfg) * kSwizzleBytes;
  // = wgmma_detail::hand_over_barriers: a K-split pair's two.
  std::int64_t const barriers = 2 * cfg.at("ST") + (WgmmaFamily::splits_k(cfg) ? 2 : 0);
  return static_cast<int>(kSwizzleAtom + cfg.at("ST") * stage + staging + barriers * 8);
}

/// K blocks one block walks for a work unit: its split-K slice, or a K-split pair's half of it.
std::int64_t unit_k_blocks(KernelConfig const& c, Problem const& p) {
  std::int64_t const slice = ceil_div(ceil_div(p.k, WgmmaFamily::block_k(p.precision)), c.at("SK"));
  return WgmmaFamily::splits_k(c) ? ceil_div(slice, 2) : slice;
}

/// Ping-pong pays off only where the epilogue is a large share of a tile: main loops of at most
/// this many K blocks. Measured on the H200 at 4096³ (64 K blocks), 64×256 ping-pong ran 540–567
/// TFLOP/s against 666–669 for 128×256 persistent tiles (and 128×128 ping-pong 573): its
/// warpgroups run their main loops one after the other on half-height tiles.
constexpr std::int64_t kPingPongMaxKBlocks = 16;

/// K blocks each slice keeps at the least when the search splits an under-filled grid further
/// (under_filled): on the H200's exhaustive bf16 core data (tests/data/replay) short K (512³:
/// 8 blocks, 1000³: 16) ran fastest on grids that leave SMs idle, and the sum of partials cost
/// more than the idle SMs; at 16 blocks a slice (1024 of K for 16-bit) the sum is a small share.
constexpr std::int64_t kMinSplitFillKBlocks = 16;

/// The staged epilogue (EP > 0) pays off only where the epilogue is a visible share of a tile:
/// main loops of at most this many K blocks. Measured on the H200 (bf16, 2-block clusters,
/// persistent): at 4096×4096×512 (8 K blocks) 128×128 tiles ran 36.5–37.0 µs staged against
/// 40.0–40.1 µs from registers; at 4096³ (64) 128×256 tiles ran 206.6–207.7 against
/// 206.8–207.8 µs, and at 8192³ the two passes disagreed in sign (−3%, +1%). In three alternating
/// rounds of 1.5 s at 4096³ (raw/2026-11-30-h200-bench-sustained-rounds-ablation.txt) staged
/// stores ran 208.9 µs against 212.5: so compute-bound problems, whose space is compact, keep the
/// staged epilogue at any depth and the search measures it.
constexpr std::int64_t kStagedEpilogueMaxKBlocks = 16;

/// Operand bytes the tensor cores multiply per SM and clock at their peak, in every precision.
constexpr double kTensorBytesPerClock = 4096.0;
/// Shared memory's bandwidth per SM and clock.
constexpr double kSmemBytesPerClock = 128.0;

/// What a wave after the first costs a grid of one unit per block (PE = 0) that a persistent
/// grid's producer hides by loading the next unit's stages during the epilogue: a fresh block's
/// launch, barriers and first stage. Fitted to the H200's bf16 4096x4096x512 rows
/// (tests/data/replay; 8 k blocks a tile, 4-8 waves): PE=0 ran 5.4-7.7 us behind PE=1 with
/// plain blocks, 1.1-1.9 us a wave after the first, and 10.4-19.1 us behind with pairs, 2.7-3.5
/// us a wave; at 1.75 GHz about 2.6k and 5.6k clocks.
constexpr double kRefillClocks = 2600.0;
constexpr double kClusterRefillClocks = 5600.0;

/// Clusters of a one-unit-per-cluster grid that PL deals onto SM groups together (= the
/// template's kDealtClusters).
constexpr int kDealtClusters = 64;

/// Time of the tile grid in units of one BM×64 slab per SM: waves of clusters × BN. A wave
/// lasts as long as one tile's main loop, which scales with BN at a fixed BM and K.
std::int64_t wave_cost(KernelConfig c, Problem const& p, DeviceLimits const& l,
                       std::int64_t bn) {
  c.set("BN", bn);
  std::int64_t const clusters = std::max<std::int64_t>(1, sm_count(l) / c.at("CL"));
  return ceil_div(unit_count(c, p), clusters) * bn;
}

}  // namespace

std::string_view WgmmaFamily::description() const {
  return "Hopper sm_90a: TMA (128B swizzle) into an mbarrier ring, producer warpgroup + 1–2 "
         "wgmma consumer warpgroups with setmaxnreg, 2- and 4-block clusters with B or A "
         "multicast or pairs splitting K, persistent grouped raster, split-K";
}

bool WgmmaFamily::supports(Precision p) const {
  return p == Precision::kFP16 || p == Precision::kBF16 || p == Precision::kTF32 || is_fp8(p);
}

int WgmmaFamily::block_k(Precision p) { return kSwizzleBytes / input_bytes(p); }

std::vector<ParamSpec> WgmmaFamily::params() const {
  return {{"BM", {64, 128, 256}, "rows of C per block (64 or 128 per consumer warpgroup)"},
          {"BN", {64, 96, 128, 160, 192, 208, 224, 256},
           "columns of C per block = wgmma N (non-powers of two fill 132 SMs better; 80, 112, "
           "144, 176 and 240 run when named)",
           std::nullopt, {80, 112, 144, 176, 240}},
          {"ST", {3, 4, 5, 6},
           "shared-memory pipeline stages (the search goes to 6; 7 and 8 run when named)",
           std::nullopt, {7, 8}},
          {"CW", {1, 2},
           "consumer warpgroups (block = (CW+1)·128 threads; two on BM=64 split its columns)"},
          {"CL", {1, 2},
           "cluster size: its blocks share one operand through TMA multicast (the search "
           "pairs blocks; 4 runs when named)",
           std::nullopt, {4}},
          {"PE", {0, 1, 2},
           "0 = one tile per block, 1 = persistent grid of one block per SM, 2 = persistent "
           "ping-pong: the 2 consumer warpgroups take whole BM×BN tiles in turn (one's epilogue "
           "overlaps the other's main loop), 3 = persistent stream-K: the grid shares the k "
           "blocks of all tiles out evenly, and the shares of a cut tile sum their FP32 "
           "partials (SK=1, EP=0; runs when named)",
           std::nullopt, {3}},
          {"GM", {1, 8}, "rasterization group: tile rows walked together"},
          {"SK", {1, 2, 4, 8}, "split-K slices (FP32 partials, summed by the tile's last slice at 2, else a reduce kernel)"},
          {"EP", {0, 1, 2, 4},
           "epilogue: 0 = stores from registers; E = C staged in shared memory, E boxes of 64 "
           "columns per consumer warpgroup, written by TMA stores that drain while the next "
           "tile runs (16-bit C, SK=1)",
           0},
          {"CA", {0, 1, 2},
           "cluster axis (CL>1): 0 = tiles stacked along M share B, 1 = side by side along N "
           "share A, 2 = a pair splits one tile's K and sums through distributed shared memory",
           0},
          {"TU", {0},
           "block-scaled FP8 with CW=2 (PE≠2): 1 = the consumer warpgroups take turns issuing "
           "each K block's wgmma, so one's promotion overlaps the other's wgmma (runs when "
           "named)",
           0, {1}},
          {"PL", {1},
           "cluster placement (CL>1): 8 gives the clusters the hardware puts on one GPC (every "
           "8th in launch order) consecutive work units, whose shared operand loads the GPC "
           "merges; 1 = launch order (8 runs when named)",
           1, {8}},
          {"ML", {0, 1},
           "multicast lead (CL>1, CA<2): 1 = the cluster's first block issues every piece of the "
           "shared operand tile, so its stages wait on its own copies only; 0 = each block "
           "issues 1/CL of them",
           0},
          {"SW", {0, 1},
           "1 = swapped operands: the kernel computes Cᵀ = Bᵀ·Aᵀ, so its tiles' rows run along N "
           "and their columns along M, where BN's steps of 16 fit a short M (EP=0; 16-bit, or "
           "tf32 and e4m3 in NT; 16-bit searched where BN covers an M ≤ 256 better than 64-row "
           "tiles)",
           0},
          {"RP", {16},
           "row pitch, in bytes, at which 16-bit operands are read in place: 16 = every one TMA "
           "can read; 128 = rows not a multiple of 128 bytes apart are first copied to a "
           "128-byte pitch (a box row that straddles two lines costs TMA several L2 requests; "
           "runs when named)",
           16, {128}},
          {"LD", {0},
           "how a stage is filled: 0 = TMA boxes; 1 = the producer warpgroup's 128 threads with "
           "16-byte cp.async into the same swizzled layout, which touch each 128-byte line once "
           "where TMA splits a box row that straddles two (16-bit, CL=1, SW=0, RP=16, rows "
           "16-byte aligned; runs when named, not yet measured)",
           0, {1}}};
}

int WgmmaFamily::threads(KernelConfig const& cfg) const {
  return static_cast<int>((cfg.at("CW") + 1) * kWarpgroup);
}

int WgmmaFamily::registers_per_thread(KernelConfig const& cfg, Problem const&) const {
  // Launched for one block per SM: the block takes the whole register file and its warpgroups
  // share it out with setmaxnreg.
  int const t = threads(cfg);
  return t > 0 ? 65536 / t / 8 * 8 : 0;
}

RooflineTraits WgmmaFamily::roofline_traits(KernelConfig const& cfg, Problem const& problem) const {
  // Hopper's dense tensor rate per SM and clock: 2048 multiply-adds of 16-bit inputs (989
  // TFLOP/s over 132 SMs at 1.83 GHz), half that for tf32, twice for FP8: 4096 bytes of
  // operand a clock in every precision.
  double const peak = problem.precision == Precision::kTF32 ? 1024.0
                      : is_fp8(problem.precision)           ? 4096.0
                                                            : 2048.0;
  // Shared memory gives 128 bytes a clock to both of its users: each wgmma reads its 64-row
  // slab of A and the warpgroup's columns of B, and TMA writes every tile once. Per byte of
  // operand multiplied that is 1/64 + 1/WN of reads and 1/BM + 1/BN of writes, which caps
  // 128×128 tiles at 80% of the peak and 128×64 at 57%; 128×256 just keeps up.
  double const need = kTensorBytesPerClock *
                      (1.0 / 64 + 1.0 / static_cast<double>(warpgroup_cols(cfg)) +
                       1.0 / static_cast<double>(cfg.at("BM")) +
                       1.0 / static_cast<double>(cfg.at("BN")));
  double const fma = peak * std::min(1.0, kSmemBytesPerClock / need);
  int const cl = static_cast<int>(cfg.at("CL"));
  // The template's unit order (unit_at): grouped raster, slice-major split-K, and PL's dealing
  // in runs of kDealtClusters (one-unit grids) or of the persistent grid's clusters (0 = the
  // whole wave). Stream-K's shares cut across tiles: its order is not modelled.
  bool const ordered = !streams_k(cfg);
  return {.fma_per_clock = fma,
          .a_shared_by = shares_a_tiles(cfg) ? cl : 1,
          .b_shared_by = shares_b_tiles(cfg) ? cl : 1,
          .k_split = splits_k(cfg) ? cl : 1,
          .raster_group = ordered ? static_cast<int>(cfg.at("GM")) : 0,
          .dealt_groups = static_cast<int>(cfg.get("PL").value_or(1)),
          .dealt_run = cfg.at("PE") == 0 ? kDealtClusters : 0,
          .refill_clocks = cfg.at("PE") != 0 ? 0.0
                           : cl > 1          ? kClusterRefillClocks
                                             : kRefillClocks};
}

Problem WgmmaFamily::tile_problem(KernelConfig const& cfg, Problem const& problem) const {
  return kernel_problem(cfg, problem);
}

bool WgmmaFamily::swaps_operands(KernelConfig const& cfg) {
  return cfg.get("SW").value_or(0) == 1;
}

std::int64_t WgmmaFamily::tiles(KernelConfig const& cfg, Problem const& p) {
  return tile_count(cfg, kernel_problem(cfg, p));
}

std::int64_t WgmmaFamily::units(KernelConfig const& cfg, Problem const& p) {
  return unit_count(cfg, kernel_problem(cfg, p));
}

bool WgmmaFamily::shares_a_tiles(KernelConfig const& cfg) {
  return cfg.at("CL") > 1 && cfg.get("CA").value_or(0) == 1;
}

bool WgmmaFamily::shares_b_tiles(KernelConfig const& cfg) {
  return cfg.at("CL") > 1 && cfg.get("CA").value_or(0) == 0;
}

bool WgmmaFamily::splits_k(KernelConfig const& cfg) {
  return cfg.at("CL") > 1 && cfg.get("CA").value_or(0) == 2;
}

bool WgmmaFamily::streams_k(KernelConfig const& cfg) { return cfg.at("PE") == 3; }

std::int64_t WgmmaFamily::stream_slices(KernelConfig const& cfg, Problem const& p) {
  return stream_slices_of(cfg, kernel_problem(cfg, p));
}

std::int64_t WgmmaFamily::grid_blocks(KernelConfig const& cfg, Problem const& p) {
  std::int64_t const u = units(cfg, p), cl = cfg.at("CL");
  // Stream-K shares k blocks, not units: fewer units than clusters still use every SM.
  if (streams_k(cfg)) return kPersistentSms / cl * cl;
  return (cfg.at("PE") >= 1 ? std::min<std::int64_t>(u, kPersistentSms / cl) : u) * cl;
}

int WgmmaFamily::smem_bytes(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);  // an id stored before EP existed has none
  return ring_smem_bytes(canon, kernel_problem(canon, problem));
}


std::vector<Constraint> WgmmaFamily::constraints() const {
  std::vector<Constraint> out;
  out.push_back({"arch", [](KernelConfig const&, Problem const&, DeviceLimits const& l) {
                   int const a = arch_number(l.arch);
                   if (a == 0 || a == 90) return std::string();
                   return "wgmma and setmaxnreg exist only on sm_90a, not " + l.arch;
                 }});
  out.push_back({"alignment", [](KernelConfig const&, Problem const& p, DeviceLimits const&) {
                   if (p.align >= 16 || copies_unaligned(p)) return std::string();
                   return "TMA needs 16-byte aligned pointers and row strides, and " +
                          std::string(to_string(p.precision)) +
                          " operands have no padded copy; the alignment class is " +
                          str(p.align) + " bytes";
                 }});
  out.push_back({"swap", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (c.at("SW") == 0) return std::string();
                   // p is the transposed problem: its N is the caller's M.
                   bool const sixteen = sixteen_bit(p);
                   bool const kmajor = p.precision == Precision::kTF32 ||
                                       p.precision == Precision::kE4M3 ||
                                       p.precision == Precision::kE4M3Row;
                   std::string const what(to_string(p.precision));
                   if (!sixteen && !kmajor) {
                     return "SW=1 swaps operands of one element type without block scales, not " +
                            what;
                   }
                   if (kmajor && p.layout != Layout::kNT) {
                     return "SW=1 with " + what + " reads both operands K-major as stored (NT); " +
                            std::string(to_string(p.layout)) + " needs K-major copies";
                   }
                   if (p.precision == Precision::kE4M3Row && p.n % 8 != 0) {
                     return "SW=1 reads the caller's row scales in pairs along M; M=" +
                            str(p.n) + " is not a multiple of 8";
                   }
                   if (c.at("EP") != 0) {
                     return "SW=1 stores C transposed from registers (EP=0), not EP=" +
                            str(c.at("EP"));
                   }
                   if (p.align < 16) {
                     return "SW=1 reads both operands in place with TMA; the alignment class is " +
                            str(p.align) + " bytes";
                   }
                   return std::string();
                 }});
  out.push_back({"swap_search", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   // Measured on an H100 (bench/results/2026-12-07-h100-elected-issue-and-
                   // swapped-operands.md): 200x8192x28672 ran 163 µs swapped (a 128x208 K-split
                   // pair) against 299-331 µs in 128- and 64-row tiles, 96x11008x4096 39.8
                   // against 45.1. So the search times SW=1 where BN covers the caller's M (the
                   // kernel's N here) with fewer empty columns than 64-row tiles leave.
                   if (c.at("SW") == 0) return std::string();
                   if (!sixteen_bit(p)) {
                     return "SW=1 is searched with 16-bit operands; " +
                            std::string(to_string(p.precision)) + " runs when named";
                   }
                   std::int64_t const m = p.n, bn = c.at("BN");
                   std::int64_t const swapped = round_up(m, bn) - m, plain = round_up(m, 64) - m;
                   if (m <= kMaxSwappedM && swapped < plain) return std::string();
                   return "SW=1 is searched where BN covers M ≤ " + str(kMaxSwappedM) +
                          " with fewer empty columns than 64-row tiles leave rows; M=" + str(m) +
                          " leaves " + str(swapped) + " against " + str(plain);
                 },
                 true});
  out.push_back({"pingpong", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   if (c.at("PE") != 2 || c.at("CW") == 2) return std::string();
                   return std::string(
                       "PE=2 alternates tiles between two consumer warpgroups; CW=1 has one");
                 }});
  out.push_back({"warpgroups", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   std::int64_t const wm = warpgroup_rows(c);
                   if (wm == 64 || wm == 128) return std::string();
                   if (c.at("PE") == 2) {
                     return "BM=" + str(c.at("BM")) +
                            " rows per ping-pong warpgroup; a warpgroup runs one or two m64 "
                            "wgmma (64 or 128 rows)";
                   }
                   return "BM=" + str(c.at("BM")) + " over CW=" + str(c.at("CW")) +
                          " consumer warpgroups gives " + str(wm) +
                          " rows each; a warpgroup runs one or two m64 wgmma (64 or 128 rows)";
                 }});
  out.push_back({"column_halves", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (!splits_columns(c)) return std::string();
                   std::int64_t const wn = warpgroup_cols(c);
                   std::string const what = "BM=64 with CW=2 gives each warpgroup BN/2 = " +
                                            str(wn) + " columns";
                   if (wn % 16 != 0 || wn < 64) {
                     return what + "; a warpgroup's wgmma N is a multiple of 16 from 64 up";
                   }
                   if (b_mn_major(p) && wn % kMnChunk != 0) {
                     return what + "; MN-major B halves must be whole 64-wide boxes";
                   }
                   if (c.at("EP") != 0) {
                     return what + "; column halves store C from registers (EP=0), not EP=" +
                            str(c.at("EP"));
                   }
                   return std::string();
                 }});
  out.push_back({"epilogue", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const ep = c.at("EP");
                   if (ep == 0) return std::string();
                   if (p.precision == Precision::kTF32) {
                     return "EP=" + str(ep) + " stages 16-bit C with stmatrix; tf32 writes FP32 C";
                   }
                   if (c.at("SK") != 1) {
                     return "EP=" + str(ep) + " stages C itself; SK=" + str(c.at("SK")) +
                            " writes FP32 partials";
                   }
                   if (p.align < 16) {
                     return "EP=" + str(ep) + " writes C with TMA stores, which need 16-byte "
                            "aligned rows; the alignment class is " + str(p.align) + " bytes";
                   }
                   if (c.at("BN") % kMnChunk != 0) {
                     return "EP=" + str(ep) + " stores boxes of 64 columns; BN=" +
                            str(c.at("BN")) + " is not a multiple of 64";
                   }
                   return std::string();
                 }});
  out.push_back({"turns", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (c.at("TU") == 0) return std::string();
                   if (!block_scaled(p.precision)) {
                     return "TU=1 interleaves block scales' promotions with wgmma; " +
                            std::string(to_string(p.precision)) + " has none";
                   }
                   if (c.at("CW") != 2 || c.at("PE") == 2) {
                     return "TU=1 takes turns between two consumer warpgroups on one tile; CW=" +
                            str(c.at("CW")) + ", PE=" + str(c.at("PE")) + " has no such pair";
                   }
                   return std::string();
                 }});
  out.push_back({"wgmma_n", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   std::int64_t const bn = c.at("BN");
                   if (bn % 16 == 0 && bn >= 16 && bn <= 256) return std::string();
                   return "BN=" + str(bn) + " is not a wgmma N (multiple of 16, at most 256)";
                 }});
  out.push_back({"accumulators", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   std::int64_t const acc = accumulators_per_thread(c);
                   if (acc <= kMaxAccumulators) return std::string();
                   return str(acc) + " FP32 accumulators per consumer thread (" +
                          str(warpgroup_rows(c)) + " rows × " + str(warpgroup_cols(c)) +
                          " columns / 128 threads) > " + str(kMaxAccumulators) +
                          "; they would spill past the 224 registers a consumer gets";
                 }});
  out.push_back({"block_scales", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (!block_scaled(p.precision)) return std::string();
                   std::int64_t const bn = c.at("BN");
                   if (splits_columns(c)) {
                     return std::string(
                         "BM=64 with CW=2 splits the columns between the warpgroups; the "
                         "promotion of block scales reads whole tiles' columns");
                   }
                   std::int64_t const acc = 2 * accumulators_per_thread(c);
                   if (acc > kMaxBlockScaledAccumulators) {
                     return str(acc) + " FP32 registers per consumer thread for the sums and one "
                            "K block's products (" + str(warpgroup_rows(c)) + " rows × BN=" +
                            str(bn) + ", twice) > " + str(kMaxBlockScaledAccumulators) +
                            ": block scales double the accumulators";
                   }
                   // Tiles start at multiples of BN, so their offsets in the 128-wide N blocks
                   // of B's scales are multiples of gcd(BN, 128).
                   std::int64_t const g = std::gcd(bn, kScaleBlock);
                   if (bn <= kScaleBlock + g) return std::string();
                   return "BN=" + str(bn) + " tiles can span three 128-wide N blocks of B's "
                          "scales; the promotion reads two";
                 }});
  out.push_back({"tile_fit", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const bm = c.at("BM"), bn = c.at("BN");
                   if (bm > 64 && p.m <= bm / 2) {
                     return "BM=" + str(bm) + " is over twice M=" + str(p.m) +
                            "; a smaller tile covers it";
                   }
                   if (bn > 64 && p.n <= bn / 2) {
                     return "BN=" + str(bn) + " is over twice N=" + str(p.n) +
                            "; a smaller tile covers it";
                   }
                   return std::string();
                 },
                 true});
  out.push_back(
      {"compute_bound", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
         // Large problems: tiles below 128×128 re-read A and B from L2 too often, a single
         // consumer warpgroup cannot overlap its epilogue, and ungrouped rasterization thrashes
         // L2; none of those configs is worth a compile.
         // Ping-pong tiles of 64×256 have the operand reuse of 128×128 per main loop.
         if (!compute_bound(p, l)) return std::string();
         bool const small = c.at("PE") == 2 ? c.at("BM") * c.at("BN") < 128 * 128
                                            : c.at("BM") < 128 || c.at("BN") < 128;
         if (small) {
           return "the " + p.shape() + " grid fills the SMs twice even with 128×128 tiles; " +
                  str(c.at("BM")) + "×" + str(c.at("BN")) + " re-reads operands too often";
         }
         if (c.at("CW") == 1) {
           return "the " + p.shape() +
                  " problem is compute-bound; one consumer warpgroup leaves the tensor cores "
                  "idle during its epilogue (CW=2)";
         }
         // A grid one tile wide or tall is walked in the same order by any GM (the raster
         // rule keeps GM=1 there).
         bool const one_line = ceil_div(p.m, c.at("BM")) == 1 || ceil_div(p.n, c.at("BN")) == 1;
         if (c.at("GM") == 1 && !one_line) {
           return "the " + p.shape() +
                  " problem is compute-bound; row-order rasterization (GM=1) thrashes L2";
         }
         return std::string();
       },
       true});
  out.push_back({"cluster_pieces",
                 [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   // Each block's full barrier must depend on every producer of the cluster
                   // (the template asserts it), so every block issues a piece of the shared
                   // operand per stage.
                   std::int64_t const cl = c.at("CL");
                   if (cl == 1 || splits_k(c)) return std::string();
                   bool const shares_a = shares_a_tiles(c);
                   bool const mn_major = shares_a ? a_mn_major(p) : b_mn_major(p);
                   std::int64_t const extent = c.at(shares_a ? "BM" : "BN");
                   if (!mn_major || round_up(extent, kMnChunk) / kMnChunk >= cl) {
                     return std::string();
                   }
                   std::string const op = shares_a ? "A" : "B";
                   return "with " + op + " stored " + (shares_a ? "K×M" : "K×N") + " the " +
                          str(cl) + " blocks of a cluster each issue 64-wide boxes of " + op +
                          "; " + (shares_a ? "BM=" : "BN=") + str(extent) +
                          " has fewer boxes than blocks";
                 }});
  out.push_back({"row_pitch", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (c.at("RP") == 16) return std::string();
                   if (!sixteen_bit(p)) {
                     return "RP=" + str(c.at("RP")) + " copies 16-bit operands; " +
                            std::string(to_string(p.precision)) + " has no padded copy";
                   }
                   if (c.at("SW") == 1) {
                     return "RP=" + str(c.at("RP")) +
                            " copies operands first; SW=1 reads both in place";
                   }
                   return std::string();
                 }});
  out.push_back({"fill", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   // = the template's LD assertion, and the copies read the caller's operands
                   // in place: the padded copy's rows would go unread.
                   if (c.at("LD") == 0) return std::string();
                   std::string const ld = "LD=" + str(c.at("LD"));
                   if (!sixteen_bit(p)) {
                     return ld + " fills 16-bit tiles; " + std::string(to_string(p.precision)) +
                            " is filled by TMA";
                   }
                   if (c.at("CL") > 1) {
                     return ld + " fills single blocks; CL=" + str(c.at("CL")) +
                            " shares tiles by TMA multicast";
                   }
                   if (c.at("SW") == 1) {
                     return ld + " fills the caller's orientation; SW=1 swaps it";
                   }
                   if (c.at("RP") != 16) {
                     return ld + " reads rows in place; RP=" + str(c.at("RP")) +
                            " copies them first";
                   }
                   if (p.align < 16) {
                     return ld + " copies 16-byte chunks of rows in place; " + p.shape() +
                            " has rows or bases only " + str(p.align) + "-byte aligned";
                   }
                   return std::string();
                 }});
  out.push_back({"row_pitch_search",
                 [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (c.at("RP") == 16) return std::string();
                   if (!straddles_lines(p)) {
                     return "RP=" + str(c.at("RP")) + " copies rows that straddle 128-byte "
                            "lines; every packed row of " + p.shape() + " starts on one";
                   }
                   // Measured on an H100 (bench/results/2026-12-07-h100-stream-k.md): from
                   // 17% faster (4096x1000x4096) to 27% slower (16x4096x1000) than reading in
                   // place, 17% slower at 4000^3, unchanged at 1000^3 with 128x64 tiles; no
                   // rule of the shape separates the wins, so the search reads in place.
                   return "RP=" + str(c.at("RP")) + " measured from 17% faster to 27% slower "
                          "than reading the rows of " + p.shape() + " in place, with no rule "
                          "for which: the search reads them in place (RP=128 runs when named)";
                 },
                 true});
  out.push_back({"k_split", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   // = the template's K_SPLIT assertion: the hand-over pairs warpgroup w of one
                   // block with warpgroup w of the other, once, from registers.
                   if (!splits_k(c)) return std::string();
                   if (c.at("CL") == 2 && c.at("CW") == 2 && c.at("PE") == 0 &&
                       c.at("SK") == 1 && c.at("EP") == 0) {
                     return std::string();
                   }
                   return "CA=2 splits a tile's K between the two blocks of a pair, each with "
                          "two consumer warpgroups, one tile per pair, C stored from registers: "
                          "CL=2, CW=2, PE=0, SK=1, EP=0, not CL=" + str(c.at("CL")) + ", CW=" +
                          str(c.at("CW")) + ", PE=" + str(c.at("PE")) + ", SK=" +
                          str(c.at("SK")) + ", EP=" + str(c.at("EP"));
                 }});
  out.push_back({"k_split_fill",
                 [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   // A pair per tile pays where single blocks would leave SMs idle and each
                   // half still walks enough k blocks to keep its ring busy.
                   if (!splits_k(c)) return std::string();
                   std::int64_t const t = tile_count(c, p);
                   if (2 * t > sm_count(l)) {
                     return str(t) + " tiles in pairs need " + str(2 * t) + " blocks, more than "
                            "the " + str(sm_count(l)) + " SMs: CA=2 would add a wave";
                   }
                   std::int64_t const kb = unit_k_blocks(c, p);
                   if (kb < 4) {
                     return "K=" + str(p.k) + " leaves each block of a K-split pair " + str(kb) +
                            " k blocks of " + str(block_k(p.precision)) + ", fewer than 4";
                   }
                   return std::string();
                 },
                 true});
  out.push_back({"cluster", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const cl = c.at("CL");
                   if (cl == 1 || splits_k(c)) return std::string();
                   bool const shares_a = shares_a_tiles(c);
                   std::string const dim = shares_a ? "N" : "M", tile = shares_a ? "BN" : "BM";
                   std::int64_t const extent = shares_a ? p.n : p.m;
                   std::int64_t const tiles = ceil_div(extent, c.at(tile));
                   if (tiles >= 2 * cl) return std::string();
                   return "CL=" + str(cl) + " groups tile " + (shares_a ? "columns" : "rows") +
                          " that share " + (shares_a ? "A" : "B") + ", but " + dim + "=" +
                          str(extent) + " has only " + str(tiles) + " of " + tile + "=" +
                          str(c.at(tile)) + " (fewer than " + str(2 * cl) +
                          "): padding blocks and multicast would cost more than they share";
                 },
                 true});
  out.push_back({"cluster_size", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   // A cluster's blocks each take a whole SM and must be scheduled together on
                   // one GPC; four of them leave a GPC's odd SMs idle, and a persistent grid of
                   // 33 such clusters may not be resident at once.
                   if (c.at("CL") <= 2) return std::string();
                   return "CL=" + str(c.at("CL")) + " blocks per cluster: the search's clusters "
                          "are pairs (larger ones run when named)";
                 },
                 true});
  out.push_back({"turn_taking", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   // Measured (H100, bench/results/2026-12-06-h100-wgmma-cluster-tail.md): turns
                   // ran 3-7% slower than free issue on four of five block-scaled configs and
                   // 3.6% faster on the fifth, so the search's budget goes to other knobs.
                   if (c.at("TU") == 0) return std::string();
                   return std::string("TU=1 measured slower than free issue on most block-scaled "
                                      "configs: the search issues freely (TU=1 runs when named)");
                 },
                 true});
  out.push_back({"placement", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   if (c.at("PL") == 1 || c.at("CL") > 1) return std::string();
                   return "PL=" + str(c.at("PL")) + " deals clusters onto GPCs; CL=1 launches "
                          "blocks, which the hardware already places 8 consecutive to a GPC";
                 }});
  out.push_back({"dealt_clusters", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   // Measured (H100, bench/results/2026-12-06-h100-cluster-placement.md): the
                   // L2's sends moved by 15-18% as the GPC model predicts, graph-replayed time
                   // by under 2.5%, so the search does not double its clustered candidates.
                   if (c.at("PL") == 1) return std::string();
                   return "PL=" + str(c.at("PL")) +
                          " deals clusters onto GPCs, which moved the L2's sends but not the "
                          "time: the search keeps launch order (PL=8 runs when named)";
                 },
                 true});
  out.push_back({"multicast_lead", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   bool const shares = shares_a_tiles(c) || shares_b_tiles(c);
                   if (c.at("ML") == 0 || shares) return std::string();
                   std::string const why = c.at("CL") == 1 ? "CL=1 shares none"
                                                           : "CA=2 splits K and shares none";
                   return "ML=1 has one block multicast the tile the cluster shares; " + why;
                 }});
  out.push_back({"lead_by_schedule",
                 [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   // Measured (H100, bench/results/2026-12-06-h100-multicast-lead.md): one block
                   // issuing the shared tile ran 0.4-7.5% faster (median 3.7%) on 15 clusters of
                   // one unit each, none slower, and 2-3% slower on a persistent 2048³ pair, so
                   // the search times one of the two.
                   if (!shares_a_tiles(c) && !shares_b_tiles(c)) return std::string();
                   std::int64_t const want = c.at("PE") == 0 ? 1 : 0;
                   if (c.at("ML") == want) return std::string();
                   return "ML=" + str(c.at("ML")) + " with PE=" + str(c.at("PE")) +
                          ": the search times ML=" + str(want) +
                          " there (the other runs when named)";
                 },
                 true});
  out.push_back({"cluster_axis", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   if (c.at("CA") == 0) return std::string();
                   if (c.at("CL") == 1) {
                     return "CA=" + str(c.at("CA")) + (c.at("CA") == 1 ? " lays a cluster's "
                            "tiles along N" : " splits K between a cluster's blocks") +
                            "; CL=1 has no cluster (the same kernel as CA=0)";
                   }
                   if (splits_k(c)) return std::string();
                   // A cluster reads one tile of the operand it shares instead of CL: sharing
                   // the larger one saves the most L2 traffic.
                   if (c.at("BM") > c.at("BN")) return std::string();
                   return "CA=1 shares A tiles of BM=" + str(c.at("BM")) +
                          " rows, no larger than the B tiles of BN=" + str(c.at("BN")) +
                          " columns that CA=0 shares";
                 },
                 true});
  out.push_back({"stream_k", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   if (!streams_k(c)) return std::string();
                   if (c.at("SK") != 1) {
                     return "PE=3 splits K itself at the shares' edges; SK=" + str(c.at("SK")) +
                            " splits it again";
                   }
                   if (c.at("EP") != 0) {
                     return "PE=3 stores a cut tile's FP32 partials from registers (EP=0), not "
                            "EP=" + str(c.at("EP"));
                   }
                   if (accumulators_per_thread(c) > 64) {
                     return "PE=3 sums a cut tile's partials in its last share: " +
                            str(accumulators_per_thread(c)) + " accumulators per consumer "
                            "thread > 64 leave no registers for the sum";
                   }
                   if (a_copied(p) || b_copied(p) || padded(c, p)) {
                     return std::string("PE=3 keeps its partials where the copies of the "
                                        "operands go: it reads both in place");
                   }
                   return std::string();
                 }});
  out.push_back({"stream_k_search",
                 [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
                   // Measured on an H100 (bench/results/2026-12-07-h100-stream-k.md): 1.2-3.2x
                   // slower than the same tile whole or split-K on all eight shapes, one to two
                   // waves and 4096^3 alike. Summing a cut tile's partials in one batch per
                   // slice did not move it (2026-12-07-h100-slice-sum-and-suites.md), so the
                   // cost is elsewhere in a share's walk.
                   if (!streams_k(c)) return std::string();
                   return std::string("PE=3 measured 1.2-3.2x slower than whole tiles or "
                                      "split-K: the search leaves it out (it runs when named)");
                 },
                 true});
  out.push_back({"persistent", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   if (c.at("PE") == 0 || streams_k(c)) return std::string();
                   std::int64_t const u = unit_count(c, p), clusters = sm_count(l) / c.at("CL");
                   if (u > clusters) return std::string();
                   return str(u) + " work units fit one wave of " + str(clusters) +
                          " clusters: PE=" + str(c.at("PE")) +
                          " gives each at most one unit (no second tile to overlap)";
                 },
                 true});
  out.push_back({"raster", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   std::int64_t const tm = ceil_div(p.m, c.at("BM")), tn = ceil_div(p.n, c.at("BN"));
                   if (c.at("GM") == 1) return std::string();
                   std::int64_t const clusters = sm_count(l) / c.at("CL");
                   if (unit_count(c, p) <= clusters) {
                     return "GM=" + str(c.at("GM")) + " orders the tiles, but all " +
                            str(unit_count(c, p)) + " work units run at once on " + str(clusters) +
                            " clusters";
                   }
                   if (tm > 1 && tn > 1) return std::string();
                   return "GM=" + str(c.at("GM")) + " regroups tile rows, but the grid is " +
                          str(tm) + "×" + str(tn) + " tiles: same order as GM=1";
                 },
                 true});
  out.push_back({"split_k", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   std::int64_t const sk = c.at("SK");
                   if (sk == 1) return std::string();
                   std::int64_t const t = tile_count(c, p);
                   if (t >= sm_count(l)) {
                     return str(t) + " tiles already cover the " + str(sm_count(l)) +
                            " SMs; SK=" + str(sk) + " would only add a reduction";
                   }
                   std::int64_t const clusters = sm_count(l) / c.at("CL");
                   if (unit_count(c, p) > clusters) {
                     return str(t) + " tiles × SK=" + str(sk) + " = " + str(unit_count(c, p)) +
                            " work units overflow one wave of " + str(clusters) +
                            " clusters; fewer slices fill the SMs with less reduction";
                   }
                   std::int64_t const kb = ceil_div(p.k, block_k(p.precision));
                   if (kb < 4 * sk || (sk - 1) * ceil_div(kb, sk) >= kb) {
                     return "K=" + str(p.k) + " is " + str(kb) + " stages of " +
                            str(block_k(p.precision)) + ": fewer than 4 per slice for SK=" +
                            str(sk);
                   }
                   return std::string();
                 },
                 true});
  out.push_back({"under_filled",
                 [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   // Measured on an H100 at 1024x1024x16384 (bench/results/2026-12-07-h100-
                   // slice-sum-and-suites.md): the splits of about 128 units ran 60-67 us, the
                   // 64-unit ones 79-84 us, and the H200's 3 s search had kept a 64-unit one.
                   // A grid that leaves half the clusters idle while twice the slices would
                   // still fit one wave, each walking a long K, is not worth timing.
                   std::int64_t const sk = c.at("SK"), more = 2 * sk;
                   if (more > 8 || c.at("EP") != 0 || splits_k(c) || streams_k(c)) {
                     return std::string();
                   }
                   std::int64_t const units = unit_count(c, p);
                   std::int64_t const clusters = sm_count(l) / c.at("CL");
                   if (2 * units > clusters) return std::string();
                   std::int64_t const kb = ceil_div(p.k, block_k(p.precision));
                   if (kb < kMinSplitFillKBlocks * more) return std::string();
                   return str(units) + " work units leave half of the " + str(clusters) +
                          " clusters idle; SK=" + str(more) + " fills them in the same wave, " +
                          str(ceil_div(kb, more)) + " k blocks a slice";
                 },
                 true});
  out.push_back({"pingpong_depth",
                 [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const kb = unit_k_blocks(c, p);
                   if (c.at("PE") != 2 || kb <= kPingPongMaxKBlocks) return std::string();
                   return "a work unit walks " + str(kb) + " K blocks: its epilogue is too small "
                          "a share for ping-pong (half-height tiles, serial main loops) to win "
                          "back; PE=1 keeps both warpgroups on one tile";
                 },
                 true});
  out.push_back({"stages", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   // One block per SM (registers): a deeper ring costs nothing but shared
                   // memory the block has to itself, and hides more load latency.
                   std::int64_t const st = c.at("ST"), kb = unit_k_blocks(c, p);
                   if (st > kMaxStages) {
                     return "ST=" + str(st) + " is deeper than the " + str(kMaxStages) +
                            " stages the search times (deeper rings run when named)";
                   }
                   if (st > kMinStages && kb <= st - 1) {
                     return "a unit walks " + str(kb) + " K blocks: ST=" + str(st - 1) +
                            " stages already hold them all";
                   }
                   if (st >= kMaxStages || kb <= st) return std::string();
                   KernelConfig deeper = c;
                   deeper.set("ST", st + 1);
                   if (l.max_smem_per_block_optin <= 0 ||
                       ring_smem_bytes(deeper, p) > l.max_smem_per_block_optin) {
                     return std::string();
                   }
                   return "ST=" + str(st + 1) + " also fits in shared memory and the " +
                          str(unit_k_blocks(c, p)) + " K blocks of a unit can use it";
                 },
                 true});
  out.push_back({"wave_fill", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   // BN off the powers of two only to quantise the grid into fewer waves of
                   // work than both neighbouring powers (per-tile efficiency favours them).
                   std::int64_t const bn = c.at("BN");
                   if ((bn & (bn - 1)) == 0) return std::string();
                   std::int64_t const lo = bn < 128 ? 64 : 128, hi = bn < 128 ? 128 : 256;
                   std::int64_t const own = wave_cost(c, p, l, bn);
                   std::int64_t const best =
                       std::min(wave_cost(c, p, l, lo), wave_cost(c, p, l, hi));
                   if (own < best) return std::string();
                   return "BN=" + str(bn) + " takes " + str(own) + " column-waves of the " +
                          p.shape() + " grid, no fewer than BN=" + str(lo) + " or " + str(hi) +
                          " (" + str(best) + ")";
                 },
                 true});
  out.push_back({"staging", [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   // Rounds of boxes make each round wait for the previous one's stores to read
                   // shared memory: stage the whole tile where it fits beside the same ring.
                   std::int64_t const ep = c.at("EP"), boxes = c.at("BN") / kMnChunk;
                   if (ep == 0) return std::string();
                   if (ep > boxes) {
                     return "EP=" + str(ep) + " boxes for BN=" + str(c.at("BN")) + ": " +
                            str(boxes) + " hold the whole tile";
                   }
                   if (ep == boxes || ep == 4) return std::string();
                   KernelConfig more = c;
                   more.set("EP", ep * 2);
                   if (l.max_smem_per_block_optin <= 0 ||
                       ring_smem_bytes(more, p) > l.max_smem_per_block_optin) {
                     return std::string();
                   }
                   return "EP=" + str(ep * 2) + " also fits beside the ST=" + str(c.at("ST")) +
                          " ring and stores the tile in fewer rounds";
                 },
                 true});
  out.push_back({"epilogue_depth",
                 [](KernelConfig const& c, Problem const& p, DeviceLimits const& l) {
                   std::int64_t const kb = unit_k_blocks(c, p);
                   if (c.at("EP") == 0 || kb <= kStagedEpilogueMaxKBlocks || compute_bound(p, l)) {
                     return std::string();
                   }
                   return "a work unit walks " + str(kb) + " K blocks: its epilogue is too small "
                          "a share for staged TMA stores (EP=" + str(c.at("EP")) +
                          ") to win back their shared memory";
                 },
                 true});
  out.push_back({"grid_size", [](KernelConfig const& c, Problem const& p, DeviceLimits const&) {
                   std::int64_t const u = unit_count(c, p);
                   if (u <= kMaxGridX) return std::string();
                   return str(u) + " work units > the grid limit " + str(kMaxGridX);
                 }});
  // Every rule reads the problem the tiles cover: with SW = 1 the transposed one, whose M and N
  // are the caller's N and M.
  for (Constraint& rule : out) {
    rule.check = [check = std::move(rule.check)](KernelConfig const& c, Problem const& p,
                                                 DeviceLimits const& l) {
      return check(c, kernel_problem(c, p), l);
    };
  }
  return out;
}

std::string WgmmaFamily::main_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);  // only declared integers reach the source
  Problem const p = kernel_problem(canon, problem);
  // Clustered configs are a separate kernel carrying __cluster_dims__; CL = 1 has none.
  std::string s = canon.at("CL") > 1 ? "gemmtune::wgmma_gemm_cluster<" : "gemmtune::wgmma_gemm<";
  s += template_arguments(canon);
  // The layout the main kernel reads: a copied operand is K-major.
  s += std::to_string(element_code(p.precision)) + "," + flag(a_mn_major(p)) + "," +
       flag(!b_mn_major(p)) + ">";
  return s;
}

std::string WgmmaFamily::copy_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  Problem const p = kernel_problem(canon, problem);
  if (padded(canon, p)) {
    return "gemmtune::wgmma_padded_copy<" + std::to_string(canon.at("SK")) + "," +
           flag(a_transposed(p.layout)) + "," + flag(b_transposed(p.layout)) + "," +
           std::to_string(canon.at("RP")) + ">";
  }
  // FP8 moves bytes (EB = 1); tf32 keeps the template's default of 4.
  return "gemmtune::wgmma_kmajor_copy<" + std::to_string(canon.at("SK")) + "," +
         flag(a_copied(p)) + "," + flag(!b_copied(p)) + "," + std::to_string(copy_batch(p)) +
         (is_fp8(p.precision) ? ",1>" : ">");
}

bool WgmmaFamily::sums_in_last_slice(KernelConfig const& cfg) {
  return last_slice_sums(cfg.at("SK")) && accumulators_per_thread(cfg) <= 64;
}

std::string WgmmaFamily::reduce_expression(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  // Swapped operands' partials are the transposed problem's: their sum turns them through
  // shared memory.
  return std::string(swaps_operands(canon) ? "gemmtune::wgmma_reduce_transposed<"
                                           : "gemmtune::wgmma_reduce<") +
         std::to_string(canon.at("SK")) + "," +
         std::to_string(element_code(problem.precision)) + ">";
}

std::int64_t WgmmaFamily::workspace_bytes(KernelConfig const& cfg, Problem const& problem) {
  Problem const p = kernel_problem(cfg, problem);
  if (padded(wgmma_family().canonical(cfg), p)) {
    return padded_offset_b(cfg, p) + padded_copy_bytes(TmaOperand::kB, p);
  }
  if (!a_copied(p) && !b_copied(p)) return partial_bytes(cfg, p);
  return copy_offset_b(cfg, p) +
         (b_copied(p) ? p.n * kmajor_copy_ld(p) * input_bytes(p.precision) : 0);
}

std::int64_t WgmmaFamily::counter_bytes(KernelConfig const& cfg, Problem const& problem) {
  if (!sums_in_last_slice(cfg) && !(streams_k(cfg) && stream_slices(cfg, problem) > 1)) return 0;
  std::int64_t const warps = cfg.at("PE") == 2 ? 4 : 4 * cfg.at("CW");
  return tiles(cfg, problem) * warps * 4;
}

std::vector<TensorMapSpec> WgmmaFamily::tensor_maps(KernelConfig const& cfg,
                                                    Problem const& problem) {
  // Every knob, also for ids stored before EP existed.
  KernelConfig const canon = wgmma_family().canonical(cfg);
  Problem const p = kernel_problem(cfg, problem);
  int const bk = block_k(p.precision);
  int const bm = static_cast<int>(cfg.at("BM")), bn = static_cast<int>(cfg.at("BN"));
  // K-major: one box of BK columns (128 bytes) × the tile's rows, or, for the operand a
  // cluster shares, CL slabs of 1/CL of them, one per block (multicast). MN-major: boxes of 64
  // columns (128 bytes) × BK rows, the kernel issues one per 64 columns of the tile.
  int const cl = static_cast<int>(cfg.at("CL"));
  bool const shares_a = shares_a_tiles(cfg);
  TensorMapSpec a{TmaOperand::kA, bm / (shares_a ? cl : 1), bk, kSwizzleBytes};
  if (a_mn_major(p)) a = {TmaOperand::kA, bk, kMnChunk, kSwizzleBytes};
  TensorMapSpec b{TmaOperand::kB, bn / (shares_b_tiles(cfg) ? cl : 1), bk, kSwizzleBytes};
  if (b_mn_major(p)) b = {TmaOperand::kB, bk, kMnChunk, kSwizzleBytes};
  if (a_copied(p)) a.workspace_offset = copy_offset_a(cfg, p);
  if (b_copied(p)) b.workspace_offset = copy_offset_b(cfg, p);
  if (padded(canon, p)) {
    a.workspace_offset = padded_offset_a(cfg, p);
    b.workspace_offset = padded_offset_b(cfg, p);
    a.padded_copy = b.padded_copy = true;
    a.in_place_pitch = b.in_place_pitch = static_cast<int>(canon.at("RP"));
  }
  if (swaps_operands(cfg)) {
    // The kernel's A is the caller's B and its B the caller's A: each descriptor covers the
    // matrix as the caller stores it, and the kernel reads them crosswise.
    a.operand = TmaOperand::kB;
    b.operand = TmaOperand::kA;
  }
  if (canon.at("EP") == 0) return {a, b};
  // Staged epilogue: one store per 64-column box (128 bytes of 16-bit C) of a warpgroup's rows.
  TensorMapSpec c{TmaOperand::kC, static_cast<int>(warpgroup_rows(cfg)), kMnChunk, kSwizzleBytes};
  return {a, b, c};
}

CompileRequest WgmmaFamily::compile_request(KernelConfig const& cfg, Problem const& problem,
                                            std::string const& arch) const {
  // In launch order (the plan's launches take their lowered names by index): the K-major
  // copy, the main kernel, the split-K reduce.
  Problem const p = kernel_problem(cfg, problem);
  std::vector<std::string> names;
  if (a_copied(p) || b_copied(p) || padded(canonical(cfg), p)) {
    names.push_back(copy_expression(cfg, problem));
  }
  names.push_back(main_expression(cfg, problem));
  std::int64_t const sk = cfg.at("SK");
  if (sk > 1 && !sums_in_last_slice(cfg)) names.push_back(reduce_expression(cfg, problem));
  // wgmma and setmaxnreg are arch-specific features: sm_90 code must be built as sm_90a.
  return embedded_request(template_file(), std::move(names),
                          (arch == "sm_90" || arch == "sm_90a") ? "sm_90a" : arch);
}

LaunchPlan WgmmaFamily::launch_plan(KernelConfig const& cfg, Problem const& problem) const {
  KernelConfig const canon = canonical(cfg);
  // The kernels' geometry reads the problem the tiles cover; the public functions called here
  // take the caller's and frame it themselves.
  Problem const p = kernel_problem(canon, problem);
  LaunchPlan plan;
  if (padded(canon, p)) {
    KernelLaunch copy;
    copy.name_expression = copy_expression(canon, problem);
    copy.grid = Dim3{padded_copy_blocks(TmaOperand::kA, p) + padded_copy_blocks(TmaOperand::kB, p),
                     1, 1};
    copy.block = Dim3{kPadThreads, 1, 1};
    copy.waits_for_prior_grids = true;
    plan.launches.push_back(std::move(copy));
  } else if (a_copied(p) || b_copied(p)) {
    std::int64_t const k_tiles = ceil_div(p.k, kCopyTile);
    KernelLaunch copy;
    copy.name_expression = copy_expression(canon, problem);
    int const batch = copy_batch(p);
    std::int64_t const rows = kCopyTile * batch;
    copy.grid = Dim3{(a_copied(p) ? ceil_div(p.m, rows) * k_tiles : 0) +
                         (b_copied(p) ? ceil_div(p.n, rows) * k_tiles : 0),
                     1, 1};
    copy.block = Dim3{kCopyThreads, 1, 1};
    copy.dynamic_smem = batch * kCopyTile * (kCopyTile + 1) * 4;  // = copy_smem_bytes(batch)
    copy.waits_for_prior_grids = true;
    plan.launches.push_back(std::move(copy));
  }
  KernelLaunch main;
  main.name_expression = main_expression(canon, problem);
  main.grid = Dim3{grid_blocks(canon, problem), 1, 1};
  main.block = Dim3{threads(canon), 1, 1};
  main.dynamic_smem = smem_bytes(canon, problem);
  main.takes_tensor_maps = true;
  main.waits_for_prior_grids = true;
  plan.launches.push_back(std::move(main));
  plan.tensor_maps = tensor_maps(canon, problem);
  std::int64_t const sk = canon.at("SK");
  if (sk > 1 && !sums_in_last_slice(cfg)) {
    KernelLaunch reduce;
    reduce.name_expression = reduce_expression(canon, problem);
    // One element per thread, or (swapped operands) one 32×32 tile per block.
    std::int64_t const blocks = swaps_operands(canon)
                                    ? ceil_div(p.m, kTransposeTile) * ceil_div(p.n, kTransposeTile)
                                    : ceil_div(p.m * p.n, kReduceThreads);
    reduce.grid = Dim3{std::clamp<std::int64_t>(blocks, 1, kMaxReduceBlocks), 1, 1};
    reduce.block = Dim3{kReduceThreads, 1, 1};
    reduce.waits_for_prior_grids = true;
    plan.launches.push_back(std::move(reduce));
  }
  plan.workspace_bytes = workspace_bytes(canon, problem);
  plan.counter_bytes = counter_bytes(canon, problem);
  return plan;
}

Family const& wgmma_family() {
  static WgmmaFamily const family;
  return family;
}

}  // namespace gemmtune
