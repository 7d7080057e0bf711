// The JSON tuning table (format "gemmtune-table", version 1): its in-memory form, a strict
// reader that names the JSON path of every problem, a stable pretty writer, and the builder the
// cache export uses. No SQLite and no CUDA here: the runtime library reads tables with this alone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/precision.hpp"
#include "src/core/problem.hpp"

namespace gemmtune {

/// The "format" field of every table.
inline constexpr std::string_view kTableFormat = "gemmtune-table";
/// The only "version" this build reads and writes.
inline constexpr int kTableVersion = 1;
/// Files larger than this are refused before parsing.
inline constexpr std::uintmax_t kMaxTableBytes = std::uintmax_t{64} << 20;
/// Deepest nesting of arrays/objects accepted (a table needs 3: root, list, item).
inline constexpr int kMaxTableDepth = 8;

/// One GPU of a table; entries and defaults refer to it by `id`.
struct TableGpu {
  int id = 0;
  GpuIdentity gpu;
  bool operator==(TableGpu const&) const = default;
};

/// Entries keep at most this many alternatives; a table with more is refused.
inline constexpr std::size_t kMaxTableAlternatives = 16;

/// Another verified kernel of an entry's problem, with its speed relative to the winner's.
struct TableAlternative {
  KernelConfig kernel;
  /// Winner's time / this kernel's time, both from the search-time measurement (one protocol),
  /// so in (0, 1] unless the re-timed winner was measured slower than it first looked.
  double relative = 0.0;
  bool operator==(TableAlternative const&) const = default;
};

/// The spread of an entry's figure (DESIGN.md §5): the fastest and slowest round median of its
/// final re-time when `rounds` ≥ 2, else the fastest and slowest repeat of one timing.
struct TableSpread {
  double lo_ms = 0.0;  ///< ≤ the entry's time_ms
  double hi_ms = 0.0;  ///< ≥ the entry's time_ms
  int rounds = 1;
  bool operator==(TableSpread const&) const = default;
};

/// The board while an entry's figure was measured (its re-time's rounds): the median SM clock
/// and temperature. Under the power cap one GEMM runs several percent apart in two processes
/// at different clocks; a later timing of the entry can be read beside the clock it ran at.
struct TableBoard {
  int sm_clock_mhz = 0;   ///< > 0
  int temperature_c = 0;  ///< > 0
  bool operator==(TableBoard const&) const = default;
};

/// Our own fastest kernel of a problem whose pick is a vendor call.
struct TableOwnFigure {
  KernelConfig kernel;   ///< never a vendor id
  double time_ms = 0.0;  ///< its figure, by the same protocol as the entry's
  bool operator==(TableOwnFigure const&) const = default;
};

/// The tuned winner for one (GPU, problem).
struct TableEntry {
  int gpu = 0;          ///< TableGpu::id
  Problem problem;      ///< align is always filled in (1, 2, 4, 8 or 16)
  KernelConfig kernel;
  double time_ms = 0.0;
  double tflops = 0.0;
  std::optional<double> cublas_ms;    ///< absent when cuBLAS was not timed
  std::optional<double> cublaslt_ms;  ///< best of cuBLASLt's heuristic algorithms
  /// The next fastest kernels of the problem, fastest first (empty in tables without them): what
  /// the lookup's wave model may offer a nearby untuned shape instead of the winner.
  std::vector<TableAlternative> alternatives;
  /// The figure's spread; absent in tables written before it was recorded.
  std::optional<TableSpread> spread;
  /// Where the pick is a vendor call: our fastest kernel, so a vendor pick is never read as a
  /// win of ours (absent when none was verified, and for own picks).
  std::optional<TableOwnFigure> own;
  /// Where the pick is a vendor call: the cuBLAS version it was timed with (e.g. "13.1.0"). A
  /// cuBLASLt algorithm id belongs to the cuBLAS that listed it; the runtime runs one only under
  /// that version. Required for cublaslt picks, "" otherwise.
  std::string cublas_version;
  /// The board of the figure's rounds; absent for figures never re-timed and in tables written
  /// before it was recorded.
  std::optional<TableBoard> board;

  /// Whether the pick is a vendor call (cublas:default or a cublaslt algorithm).
  bool vendor() const;
  /// cublas_ms / own->time_ms: our best kernel against cuBLAS where the pick is a vendor call.
  std::optional<double> own_ratio_cublas() const;
  /// The faster of cublas_ms and cublaslt_ms (absent when neither was timed).
  std::optional<double> best_vendor_ms() const;
  /// best_vendor_ms over our best kernel's figure (own->time_ms under a vendor pick, else the
  /// pick's): how our kernels stand against the best of cuBLAS and cuBLASLt-autotuned.
  std::optional<double> own_ratio_best_vendor() const;
  /// cublas_ms / time_ms: above 1 the tuned kernel beats cuBLAS.
  std::optional<double> ratio_cublas() const;
  /// cublaslt_ms / time_ms: above 1 the tuned kernel beats cuBLASLt autotuned.
  std::optional<double> ratio_cublaslt() const;
  bool operator==(TableEntry const&) const = default;
};

/// The config with the best mean relative performance over the tuned shapes of one
/// (GPU, precision, layout), among configs verified at an alignment class ≤ `align`; it is
/// offered for untuned problems whose alignment class is ≥ `align`.
struct TableDefault {
  int gpu = 0;  ///< TableGpu::id
  Precision precision = Precision::kFP32;
  Layout layout = Layout::kNN;
  int align = 16;
  KernelConfig kernel;
  double mean_relative = 0.0;  ///< in (0, 1]: mean over shapes of best_time / this config's time
  int shapes = 0;              ///< shapes on which the config has a verified time
  bool operator==(TableDefault const&) const = default;
};

/// One interval of M of a range: calls with M in [m_lo, m_hi] run the kernel of the table's
/// entry at M = `m` (same GPU, N, K, precision, layout and alignment class), which lies in it.
struct TableRangeBucket {
  std::int64_t m_lo = 0;
  std::int64_t m_hi = 0;
  std::int64_t m = 0;
  bool operator==(TableRangeBucket const&) const = default;
};

/// Most buckets one range holds.
inline constexpr std::size_t kMaxRangeBuckets = 4096;

/// M buckets of one (GPU, N, K, precision, layout, alignment class): where the token count of
/// a layer changes from call to call, the entries measured at several M cover the whole span
/// between the first and the last, each M going to the measured point nearest in log space.
/// The buckets are in ascending order, contiguous, and each names an entry of the table.
struct TableRange {
  int gpu = 0;  ///< TableGpu::id
  std::int64_t n = 0;
  std::int64_t k = 0;
  Precision precision = Precision::kFP32;
  Layout layout = Layout::kNN;
  int align = 16;
  std::vector<TableRangeBucket> buckets;
  bool operator==(TableRange const&) const = default;
};

/// A whole tuning table.
struct TuningTable {
  std::string generated_at;      ///< ISO 8601 UTC, e.g. "2025-06-01T12:00:00Z"
  std::string gemmtune_version;  ///< of the gemmtune that wrote it
  std::vector<TableGpu> gpus;
  std::vector<TableEntry> entries;
  std::vector<TableDefault> defaults;
  /// M buckets (absent from tables written before them, which load as without ranges).
  std::vector<TableRange> ranges;

  /// The GPU with this id, or nullptr.
  TableGpu const* find_gpu(int id) const;
  bool operator==(TuningTable const&) const = default;
};

/// Parses and validates a table. Throws Error "<source>: <json path>: expected ..., got ..." on
/// the first problem: size over kMaxTableBytes, nesting over kMaxTableDepth, a duplicate or
/// unknown key, a wrong type, an out-of-range value, an unknown precision or layout, a kernel id
/// that is not canonical, a vendor id that is invalid or stands where only our kernels may (an
/// alternative, a default, "own"), a "vendor" mark that disagrees with the kernel, a cublaslt
/// pick without its cuBLAS version, a dangling GPU id, a duplicate entry, a range whose buckets
/// overlap, leave gaps, are inverted, out of bounds or name no entry, or another format or
/// version.
TuningTable parse_tuning_table(std::string_view text, std::string_view source = "tuning table");
/// Reads a table file (size checked before reading); errors name the path.
TuningTable read_tuning_table(std::filesystem::path const& path);

/// Pretty JSON (2-space indent, documented key order, trailing newline). Entries and defaults
/// are written in the order held; TuningTableBuilder::build() sorts them.
std::string format_tuning_table(TuningTable const& table);
/// Writes the table next to `path` and renames it into place, so readers never see half a file.
void write_tuning_table(TuningTable const& table, std::filesystem::path const& path);

/// Unix seconds as ISO 8601 UTC ("1970-01-01T00:00:00Z").
std::string format_utc_time(std::int64_t unix_seconds);

/// The buckets over measured points m_1 < … < m_p (p ≥ 1): from m_1 to m_p, each M going to the
/// point nearest in log space (the boundary between two points is their geometric mean).
std::vector<TableRangeBucket> range_buckets(std::vector<std::int64_t> const& measured_m);

/// Assembles a table from results (the cache export uses it). GPUs get ids in order of first use.
class TuningTableBuilder {
 public:
  /// `generated_at` defaults to the current time.
  explicit TuningTableBuilder(std::string generated_at = {});

  /// The id of a GPU, adding it on first use.
  int add_gpu(GpuIdentity const& gpu);
  /// Adds the winner for one problem (align 0 is resolved from packed storage). The entry is
  /// returned for its optional fields (board); the reference is valid until the next add.
  TableEntry& add_entry(GpuIdentity const& gpu, Problem const& problem, KernelConfig const& kernel,
                 double time_ms, double tflops, std::optional<double> cublas_ms,
                 std::optional<double> cublaslt_ms,
                 std::vector<TableAlternative> alternatives = {},
                 std::optional<TableSpread> spread = std::nullopt,
                 std::optional<TableOwnFigure> own = std::nullopt,
                 std::string cublas_version = {});
  /// Adds a default for (GPU, precision, layout, align).
  void add_default(GpuIdentity const& gpu, Precision precision, Layout layout, int align,
                   KernelConfig const& kernel, double mean_relative, int shapes);

  /// The table, entries and defaults sorted by (gpu, precision, layout, shape/align), with a
  /// range for every (gpu, N, K, precision, layout, align) whose entries are at two or more M
  /// (range_buckets), checked by the same reader that import uses, so an export never writes a
  /// table import refuses.
  TuningTable build() const;

 private:
  TuningTable table_;
};

}  // namespace gemmtune
