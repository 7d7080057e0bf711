// Family: the host-side descriptor of one kernel template. It declares the parameters and their
// values, the constraints (each a named predicate that explains a rejection), how to build the
// NVRTC request for a config, and the launch plan for a problem.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/gpu_identity.hpp"
#include "src/core/kernel_abi.hpp"
#include "src/core/kernel_config.hpp"
#include "src/core/problem.hpp"
#include "src/nvrtc/compiler.hpp"

namespace gemmtune {

/// One searchable parameter with the values the space enumerates, in declared order.
struct ParamSpec {
  std::string name;
  std::vector<std::int64_t> values;
  std::string help;
  /// The value an id without this parameter stands for: ids written before the parameter was
  /// declared (stored trials, exported tables) keep naming the kernel they named then.
  std::optional<std::int64_t> absent = std::nullopt;
  /// Values an id may name and run that the space does not enumerate: ones measured not to pay
  /// (a search constraint says why) and ones not yet measured. Each multiplies the product the
  /// search walks, so leaving them out of it keeps a search's enumeration under a second.
  std::vector<std::int64_t> named_only = {};

  /// Whether `v` is one of the values the space enumerates.
  bool enumerates(std::int64_t v) const;
  /// Whether `v` is one of this parameter's values, enumerated or named only.
  bool accepts(std::int64_t v) const;
};

/// A named predicate over (config, problem, limits); `check` returns an empty string to accept
/// or a reason to reject ("BM*BN/(TM*TN)=2048 threads > 1024").
struct Constraint {
  std::string name;
  std::function<std::string(KernelConfig const&, Problem const&, DeviceLimits const&)> check;
  /// True for a preference of the search: the config computes the problem correctly but is not
  /// worth timing for it (a tile far larger than the shape, a thread tile too small for a
  /// compute-bound grid). False for what the kernel needs to run correctly at all.
  bool prunes = false;
};

/// Which constraints a rejection check applies.
enum class RejectScope {
  kSearch,  ///< every constraint: what a search would time
  kRun,     ///< only what correctness needs: what may run (an explicit kernel, a table entry)
};

/// What the roofline estimate (roofline_estimate.hpp) needs to know of a config besides its
/// tile, threads and shared memory.
struct RooflineTraits {
  /// Multiply-adds one SM retires per clock at best with this config (0: the family has no
  /// estimate, and its configs are not ranked by it).
  double fma_per_clock = 0.0;
  /// Blocks that share each tile of A they load (TMA multicast within a cluster along N).
  int a_shared_by = 1;
  /// Blocks that share each tile of B they load (TMA multicast within a cluster along M).
  int b_shared_by = 1;
  /// Whether split-K slices sum on chip in the same launch (no partials through L2).
  bool split_sums_on_chip = false;
  /// Blocks of a cluster that split each work unit's K range and sum on chip (1: none); they
  /// count as that many more slices, whose sums cost no partials.
  int k_split = 1;
  /// The launch order, for the L2's merging of requests from SMs near each other (0: not
  /// modelled). Work units in launch order walk GROUP tile rows at a time, column by column
  /// (tile_schedule::grouped), slice after slice of split-K; a cluster's blocks take its
  /// a_shared_by tiles along N, b_shared_by along M, or its k_split parts of one tile.
  int raster_group = 0;
  /// SM groups the kernel deals its clusters onto, so that the clusters of one group take
  /// consecutive work units (tile_schedule::dealt); 1: launch order.
  int dealt_groups = 1;
  /// Clusters dealt together (0: the whole wave).
  int dealt_run = 0;
  /// Clocks each wave after the first loses before its first k block where a fresh block (or
  /// cluster) takes each unit: launch, barriers, the first stage's load (0: the family's
  /// blocks hide them, or it has no figure).
  double refill_clocks = 0.0;
};

/// A kernel family (one template file under kernel_templates/).
class Family {
 public:
  virtual ~Family() = default;

  /// "naive", "warptile", ... (the family part of kernel ids).
  virtual std::string_view name() const = 0;
  /// One line for `gemmtune space` and `--help`.
  virtual std::string_view description() const = 0;
  /// The template file (relative to kernel_templates/), e.g. "ladder/naive.cuh".
  virtual std::string_view template_file() const = 0;
  /// Lowest compute capability (e.g. 70), and whether it needs an arch-specific target (sm_90a).
  virtual int min_arch() const = 0;
  virtual bool supports(Precision p) const = 0;

  /// Parameters in canonical (id) order.
  virtual std::vector<ParamSpec> params() const = 0;
  /// Every constraint; checked in order, the first failure is the reason.
  virtual std::vector<Constraint> constraints() const = 0;

  /// The NVRTC request for a config on a problem (layout and alignment may select template
  /// arguments). Only validated integers from the config reach the source.
  virtual CompileRequest compile_request(KernelConfig const& cfg, Problem const& problem,
                                         std::string const& arch) const = 0;
  /// Launches for a problem; lowered names are left empty for the caller to fill from the
  /// compile result (same order as compile_request().name_expressions).
  virtual LaunchPlan launch_plan(KernelConfig const& cfg, Problem const& problem) const = 0;
  /// Shared memory the config needs in bytes (static + dynamic), for pruning before compiling.
  virtual int smem_bytes(KernelConfig const& cfg, Problem const& problem) const = 0;
  /// Threads per block.
  virtual int threads(KernelConfig const& cfg) const = 0;
  /// Registers per thread the config's kernels are planned for (an estimate, 0 when the family
  /// has none): with threads() and smem_bytes(), how many blocks share an SM.
  virtual int registers_per_thread(KernelConfig const& /*cfg*/, Problem const& /*problem*/) const {
    return 0;
  }
  /// The problem whose C the config's BM×BN tiles cover: `problem` itself, unless the config
  /// computes Cᵀ = op(B)ᵀ·op(A)ᵀ instead (Problem::transposed), whose tiles run along N and M.
  /// What a model of tiles over a shape reads its M and N from.
  virtual Problem tile_problem(KernelConfig const& /*cfg*/, Problem const& problem) const {
    return problem;
  }
  /// The config's peak rate and operand sharing, for the roofline estimate; none by default.
  virtual RooflineTraits roofline_traits(KernelConfig const& /*cfg*/,
                                         Problem const& /*problem*/) const {
    return {};
  }

  /// Reason the config is rejected for the problem on this device, or "": parameter names and
  /// values must match params(), then the constraints of `scope` (under kSearch, then no value
  /// that runs only when named), then the device limits.
  std::string reject_reason(KernelConfig const& cfg, Problem const& problem,
                            DeviceLimits const& limits,
                            RejectScope scope = RejectScope::kSearch) const;
  /// The config with this family's parameters in canonical order (a missing parameter that
  /// declares an `absent` value takes it); throws UsageError when a parameter is missing,
  /// unknown, or not one of its declared values.
  KernelConfig canonical(KernelConfig const& cfg) const;
  /// The cartesian product of params()' enumerated values in canonical order (before
  /// constraints; values a parameter takes only when named are not part of it).
  std::vector<KernelConfig> enumerate() const;
  /// Calls `visit` with each config of enumerate()'s product in the same order, one config
  /// object updated in place, so a search over a space of a million configs keeps only those
  /// it accepts.
  void for_each_config(std::function<void(KernelConfig const&)> const& visit) const;
  /// How many configs enumerate() yields: the product of the declared value counts.
  std::size_t space_size() const;

  /// params() and constraints(), built once: validation runs them for every config of the
  /// space, and rebuilding dozens of named predicates per config cost more than checking them.
  std::vector<ParamSpec> const& declared_params() const;
  std::vector<Constraint> const& declared_constraints() const;

 private:
  struct Declared {
    std::vector<ParamSpec> params;
    std::vector<Constraint> constraints;
  };
  Declared const& declared() const;
  mutable std::once_flag declared_once_;
  mutable std::unique_ptr<Declared const> declared_;
};

/// Blocks along grid x a launch may have (2^31 − 1).
inline constexpr std::int64_t kMaxGridX = (std::int64_t{1} << 31) - 1;

/// Registers each of `threads` threads of a block may use without spilling: the device's
/// per-thread limit (at most 255), and the SM's register file shared by the block, in the
/// allocation unit of 8.
int register_budget(DeviceLimits const& limits, int threads);

/// "v1,v2,...," — a canonical config's values in parameter order, the leading template
/// arguments of every family's kernels (only declared integers reach the source).
std::string template_arguments(KernelConfig const& canonical_config);

/// Whether a split-K launch plan with `slices` slices sums them in the last slice of each tile
/// (one launch, split-K counters) rather than in a reduce kernel: the templates' rule,
/// split_k::last_slice_sums in kernel_templates/common/split_k.cuh, which says why.
constexpr bool last_slice_sums(std::int64_t slices) { return slices == 2; }

/// The NVRTC request for kernels of the embedded template `template_file`: its source, the
/// name expressions in launch order and the arch. Throws Error when the template was not
/// embedded in the build.
CompileRequest embedded_request(std::string_view template_file,
                                std::vector<std::string> name_expressions, std::string arch);

/// Why `cfg` cannot run `problem` on a device with `limits` ("" when it can): an unknown family,
/// parameters outside the family's lists, or a failed constraint that correctness needs (search
/// preferences do not count). What the query chain and the runtime ask before offering a stored
/// kernel for a problem it was not tuned on.
std::string runnable_reason(KernelConfig const& cfg, Problem const& problem,
                            DeviceLimits const& limits);

/// Blocks of `cfg` resident on one SM at once, bounded by threads, shared memory and
/// registers_per_thread() (the register file is allocated in units of 256 per warp); at least 1.
int resident_blocks(Family const& family, KernelConfig const& cfg, Problem const& problem,
                    DeviceLimits const& limits);

/// The cost of `cfg` on `problem` on a device with `limits` (its SM count), in units comparable
/// only for one kernel across problems: waves of work units times the work of one unit. A unit
/// is an output tile and K slice: ceil(M/BM)·ceil(N/BN)·SK units of BM·BN·ceil(K/SK)
/// multiply-adds (every family has BM and BN); a wave is as many units as SMs times the blocks
/// that fit on one SM (threads, shared memory, registers_per_thread()). Persistent kernels walk the same tiles, so they
/// pay the same waves. 0 (no estimate) for an unknown family, a config without BM and BN, or a
/// config the family's search would not propose for the problem, so the
/// model only compares kernels the family deems sensible there. What the lookup's nearest rule
/// uses to carry a kernel's time from a tuned shape to a nearby one.
double wave_cost(KernelConfig const& cfg, Problem const& problem, DeviceLimits const& limits);

/// `cfg` in its family's canonical form (a parameter that declares an `absent` value filled in),
/// or unchanged when it names no known family or is not one of its configs: what ids read back
/// from a store are compared as.
KernelConfig canonical_or_same(KernelConfig const& cfg);

/// Every family gemmtune knows, in a fixed order.
std::vector<Family const*> all_families();
/// The family with this name, or nullptr.
Family const* find_family(std::string_view name);
/// Families named by a --family value: a family name, a group ("ladder", "all") or a
/// comma-separated list of those; throws UsageError naming the unknown text and the choices.
std::vector<Family const*> select_families(std::string_view text);

}  // namespace gemmtune
