// The fallback chain that picks a kernel for a problem from a tuning table, shared by
// `gemmtune query` and the runtime library: exact → M range (buckets) → nearest tuned shape →
// GPU default → same-arch default → none (use cuBLAS).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"
#include "src/core/tuning_table.hpp"

namespace gemmtune {

/// Which rule of the chain answered.
enum class LookupRule {
  kExact,        ///< this GPU, this precision, layout, M, N, K and alignment class
  kRange,        ///< this GPU, N, K, precision and layout, M inside a range's buckets
  kNearest,      ///< this GPU, nearest tuned shape whose alignment class is ≤ the problem's
  kGpuDefault,   ///< this GPU's default for (precision, layout)
  kArchDefault,  ///< the default of another GPU with the same compute capability
  kNone,         ///< nothing applies: use cuBLAS
};

/// "exact", "range", "nearest", "gpu_default", "arch_default", "none".
std::string_view to_string(LookupRule rule);

/// The answer of a lookup. Its kernel may be a vendor call (cublas:default, a cublaslt
/// algorithm): an exact entry whose pick it is, or the nearest rule finding that our kernels
/// would not beat cuBLAS by more than kVendorMargin here.
struct LookupResult {
  LookupRule rule = LookupRule::kNone;
  std::optional<KernelConfig> kernel;  ///< nullopt for kNone
  int entry_index = -1;    ///< into TuningTable::entries for kExact / kRange / kNearest, else -1
  int range_index = -1;    ///< into TuningTable::ranges for kRange, else -1
  int default_index = -1;  ///< into TuningTable::defaults for the two default rules, else -1
  double distance = 0.0;   ///< kNearest: √Σ log2(asked / tuned)² over M, N, K
  /// kNearest with a cost model: the predicted time on the asked shape (0 without one).
  double predicted_ms = 0.0;
  std::string explanation; ///< one line saying which rule matched and why
};

/// Why a kernel cannot run a problem ("" when it can). The chain skips candidates it rejects
/// (a config tuned for one shape may break a constraint of another, e.g. a split-K slice count
/// that leaves too few K steps), so callers pass their family checks here.
using KernelFilter = std::function<std::string(KernelConfig const&, Problem const&)>;

/// A kernel's cost on a problem in units that only need to be comparable for one kernel across
/// problems (e.g. waves of tiles times the work of a tile); ≤ 0 when unknown. With it, the
/// nearest rule predicts, for each kernel measured on one of the few nearest tuned shapes, its
/// time on the asked shape as measured time × cost(asked) / cost(measured), and offers the
/// fastest prediction; without it, the nearest shape's winner.
using KernelCost = std::function<double(KernelConfig const&, Problem const&)>;

/// Tuned shapes whose kernels the nearest rule's cost model compares.
inline constexpr int kNearestNeighbours = 4;
/// How much faster than cuBLAS our kernel must be predicted (or measured, on the nearest shape)
/// for the nearest rule to offer it on an untuned shape: the widest noise band (tie_rule.hpp),
/// so a prediction inside the noise goes to cuBLAS, which never loses to itself.
inline constexpr double kVendorMargin = 0.02;

/// An index over one table, built once, so each lookup is a hash lookup plus a scan of the
/// entries of one (GPU, precision, layout).
///
/// Alignment rule: a config tuned and verified on data aligned to A bytes may rely on A-byte
/// vector loads (float4, cp.async 16), which fault on less-aligned data. So an entry or default
/// is only ever offered for a problem whose alignment class is ≥ its own; a config tuned on
/// 4-byte-aligned data is safe (if perhaps slower) on 16-byte-aligned data, never the reverse.
class TableIndex {
 public:
  explicit TableIndex(TuningTable table);

  /// The table the index was built from.
  TuningTable const& table() const { return table_; }

  /// Runs the chain for a problem on a GPU. A problem with align 0 is resolved from packed
  /// storage first; a shape outside [1, kMaxDim] gets kNone.
  LookupResult lookup(GpuIdentity const& gpu, Problem const& problem,
                      KernelFilter const& can_run = {}, KernelCost const& cost = {}) const;

 private:
  struct Bucket {
    std::vector<int> entries;                      // entry indices of one (gpu, precision, layout)
    std::unordered_map<std::string, int> exact;    // "m,n,k,align" → entry index
    std::vector<int> defaults;                     // default indices, ascending align
  };
  Bucket const* bucket(int gpu_id, Precision p, Layout l) const;
  int pick_default(Bucket const& b, Problem const& p, KernelFilter const& can_run) const;
  /// The kRange answer for `p`, if a range of an alignment class ≤ p's holds its M and the
  /// bucket's kernel runs it.
  bool lookup_range(int gpu_id, Problem const& p, Bucket const& own,
                    std::function<bool(KernelConfig const&)> const& runs, LookupResult& r) const;

  TuningTable table_;
  std::vector<std::array<double, 3>> log_shapes_;     // log2 of M, N, K per entry
  std::unordered_map<std::string, int> gpu_ids_;      // identity key → TableGpu::id
  std::unordered_map<std::string, Bucket> buckets_;   // "gpu/precision/layout" → bucket
  // "gpu/precision/layout/n,k" → range indices, widest alignment class first
  std::unordered_map<std::string, std::vector<int>> ranges_;
};

/// One-off lookup: builds a TableIndex and asks it. Keep a TableIndex for repeated lookups.
LookupResult lookup(TuningTable const& table, GpuIdentity const& gpu, Problem const& problem,
                    KernelFilter const& can_run = {}, KernelCost const& cost = {});

}  // namespace gemmtune
