// Runtime: per-call decisions (table lookup → family checks → compiled kernel, or cuBLAS) cached
// per (device, problem), so a repeated call costs one shared-lock hash lookup and a launch.
// Decisions are immutable once published; a kernel that fails to launch is replaced by a
// cuBLAS decision for its problem.
#include "gemmtune/runtime.hpp"

#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include <cuda_runtime_api.h>

#include "src/core/gpu_identity.hpp"
#include "src/core/table_lookup.hpp"
#include "src/core/tuning_table.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/kernels/family.hpp"
#include "src/launch/cublaslt_matmul.hpp"
#include "src/launch/device_query.hpp"
#include "src/launch/plan_launch.hpp"
#include "src/launch/tensor_map_encoder.hpp"
#include "src/runtime/cublas_gemm.hpp"
#include "src/runtime/cublaslt_handles.hpp"
#include "src/runtime/gemm_call.hpp"
#include "src/runtime/kernel_library.hpp"
#include "src/runtime/workspace_pool.hpp"

namespace gemmtune {
namespace {

/// Decisions kept before the cache is cleared (a program with endlessly new shapes).
constexpr std::size_t kMaxDecisions = 1 << 16;

/// $GEMMTUNE_CUBIN_CACHE, else $XDG_CACHE_HOME/gemmtune/cubins, else ~/.cache/gemmtune/cubins
/// (the CLI's default too, so the runtime reuses what tuning compiled), else no disk cache.
std::string default_cubin_dir() {
  auto const env = [](char const* name) -> std::string {
    char const* v = std::getenv(name);
    return v ? v : "";
  };
  if (std::string d = env("GEMMTUNE_CUBIN_CACHE"); !d.empty()) return d;
  if (std::string x = env("XDG_CACHE_HOME"); !x.empty() && x.front() == '/') {
    return x + "/gemmtune/cubins";
  }
  if (std::string h = env("HOME"); !h.empty()) return h + "/.cache/gemmtune/cubins";
  return {};
}

struct DecisionKey {
  int device;
  Precision precision;
  Layout layout;
  int align;
  std::int64_t m, n, k;
  bool operator==(DecisionKey const&) const = default;
};

struct DecisionKeyHash {
  std::size_t operator()(DecisionKey const& key) const noexcept {
    std::size_t h = static_cast<std::size_t>(key.device);
    auto mix = [&h](std::uint64_t v) { h ^= std::hash<std::uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(static_cast<std::uint64_t>(key.precision) * 4 + static_cast<std::uint64_t>(key.layout));
    mix(static_cast<std::uint64_t>(key.align));
    mix(static_cast<std::uint64_t>(key.m));
    mix(static_cast<std::uint64_t>(key.n));
    mix(static_cast<std::uint64_t>(key.k));
    return h;
  }
};

/// How calls of one (device, problem) run.
struct Decision {
  std::string rule;          // table rule, "" when the table was not asked
  std::string kernel;        // table kernel id, "" for none
  std::string detail;        // why this path
  std::vector<PreparedLaunch> launches;  // empty: cuBLAS
  std::int64_t workspace_bytes = 0;
  bool zero_workspace = false;
  std::int64_t counter_bytes = 0;
  std::vector<TensorMapSpec> tensor_maps;  // encoded per call's pointers (remembered)
  Problem problem;                          // what the descriptors describe
  TensorMapEncoder encoder;                 // thread-safe; its cache is internal
  // A cuBLASLt pick: the algorithm built once from its id, the descriptors of the leading
  // dimensions it was checked with (a call with others builds its own on the stack).
  bool cublaslt = false;
  cublasLtMatmulAlgo_t lt_algo{};
  std::size_t lt_workspace = 0;
  LtDescriptors lt_desc{};
  std::int64_t lt_lda = 0, lt_ldb = 0, lt_ldc = 0;
  /// The cuBLASLt algorithm is the heuristic's first, standing in for the cuBLAS default of an
  /// FP8 problem (cublasGemmEx takes no FP8); nothing else is left to fall back to.
  bool fp8_default = false;
  bool tuned() const { return !launches.empty(); }
};

/// Workspace cuBLASLt's heuristic may ask for when it picks the FP8 default algorithm.
constexpr std::uint64_t kFp8DefaultWorkspace = 32ull << 20;

/// What the runtime needs to know about one device.
struct DeviceInfo {
  bool ok = false;
  std::string reason;  // when !ok
  GpuIdentity gpu;
  DeviceLimits limits;
};

DeviceInfo probe(int device) {
  DeviceInfo info;
  if (std::string const why = query_device(device, info.gpu, info.limits); !why.empty()) {
    info.reason = "no usable CUDA device " + std::to_string(device) + " (" + why + ")";
    return info;
  }
  info.ok = true;
  return info;
}

void fill(GemmInfo* info, GemmStatus status, GemmPath path, Decision const* d, int align,
          std::string detail = {}) {
  if (info == nullptr) return;
  info->status = status;
  info->path = path;
  info->align = align;
  info->rule = d ? d->rule : "";
  info->kernel = d ? d->kernel : "";
  info->detail = !detail.empty() ? std::move(detail) : (d ? d->detail : std::string());
}

}  // namespace

std::string_view to_string(GemmStatus status) {
  switch (status) {
    case GemmStatus::kOk: return "ok";
    case GemmStatus::kInvalidArgument: return "invalid_argument";
    case GemmStatus::kNoDevice: return "no_device";
    case GemmStatus::kCudaError: return "cuda_error";
    case GemmStatus::kCublasError: return "cublas_error";
  }
  return "unknown";
}

std::string_view to_string(GemmPath path) {
  switch (path) {
    case GemmPath::kNone: return "none";
    case GemmPath::kTuned: return "tuned";
    case GemmPath::kCublas: return "cublas";
    case GemmPath::kCublasLt: return "cublaslt";
  }
  return "unknown";
}

struct Runtime::Impl {
  RuntimeOptions options;
  std::string table_source;  // "" without a table
  std::optional<TableIndex> index;
  KernelLibrary kernels;
  CublasPool cublas;
  CublasLtHandles cublaslt;
  WorkspacePool workspaces;
  WorkspacePool counters{true};  // split-K tile counters: zero between calls

  std::mutex build_mutex;  // one decision built at a time (compiles are slow and shared)
  std::shared_mutex mutex;  // guards devices and decisions
  std::unordered_map<int, DeviceInfo> devices;
  std::unordered_map<DecisionKey, std::shared_ptr<Decision const>, DecisionKeyHash> decisions;

  explicit Impl(RuntimeOptions opts)
      : options(std::move(opts)),
        kernels(CompilerSettings{{}, options.cubin_cache_dir.empty() ? default_cubin_dir()
                                                                     : options.cubin_cache_dir}) {}

  std::shared_ptr<Decision const> find(DecisionKey const& key) {
    std::shared_lock lock(mutex);
    auto it = decisions.find(key);
    return it == decisions.end() ? nullptr : it->second;
  }

  void publish(DecisionKey const& key, std::shared_ptr<Decision const> d) {
    std::unique_lock lock(mutex);
    if (decisions.size() >= kMaxDecisions) decisions.clear();
    decisions[key] = std::move(d);
  }

  DeviceInfo device_info(int device) {
    {
      std::shared_lock lock(mutex);
      if (auto it = devices.find(device); it != devices.end()) return it->second;
    }
    DeviceInfo info = probe(device);
    std::unique_lock lock(mutex);
    return devices.emplace(device, std::move(info)).first->second;
  }

  /// Decides how a problem runs on a device; call with build_mutex held. An FP8 problem that
  /// the table does not answer with a kernel or a cuBLASLt algorithm gets cuBLASLt's heuristic
  /// algorithm instead of the cuBLAS call.
  std::shared_ptr<Decision const> decide(int device, DeviceInfo const& dev, GemmCall const& call) {
    std::shared_ptr<Decision> d = decide_from_table(device, dev, call);
    if (is_fp8(call.precision) && !d->tuned() && !d->cublaslt) attach_fp8_default(device, call, *d);
    return d;
  }

  /// The table's answer: its kernel compiled and prepared, its cuBLASLt algorithm built, or
  /// the cuBLAS call with the reason.
  std::shared_ptr<Decision> decide_from_table(int device, DeviceInfo const& dev,
                                              GemmCall const& call) {
    Problem const p = call_problem(call);
    auto d = std::make_shared<Decision>();
    if (!options.use_tuned) {
      d->detail = "cuBLAS: tuned kernels are switched off (RuntimeOptions::use_tuned)";
      return d;
    }
    if (!index) {
      d->detail = "cuBLAS: no tuning table loaded";
      return d;
    }
    if (p.k == 0) {
      d->detail = "cuBLAS: K = 0 only scales C by beta";
      return d;
    }
    // Entries whose kernel cannot run this call are passed over, so a nearer-but-invalid
    // entry does not hide a valid one further away.
    LookupResult const r = index->lookup(
        dev.gpu, p,
        [&](KernelConfig const& k, Problem const& q) { return runnable_reason(k, q, dev.limits); },
        [&](KernelConfig const& k, Problem const& q) { return wave_cost(k, q, dev.limits); });
    d->rule = std::string(to_string(r.rule));
    if (!r.kernel) {
      d->detail = "cuBLAS: " + r.explanation;
      return d;
    }
    d->kernel = r.kernel->id();
    if (is_vendor(*r.kernel)) return decide_vendor(device, call, r, std::move(d));
    Family const* family = find_family(r.kernel->family);
    if (!family) {
      d->detail = "cuBLAS: kernel family '" + r.kernel->family + "' is not in this build";
      return d;
    }
    if (std::string const why = family->reject_reason(*r.kernel, p, dev.limits, RejectScope::kRun);
        !why.empty()) {
      d->detail = "cuBLAS: " + d->kernel + " cannot run this call: " + why;
      return d;
    }
    if (!is_supported_arch(dev.limits.arch)) {
      d->detail = "cuBLAS: NVRTC targets " + std::string(supported_archs()) + ", not " +
                  dev.limits.arch;
      return d;
    }
    CompileRequest const request = family->compile_request(*r.kernel, p, dev.limits.arch);
    LaunchPlan const plan = family->launch_plan(*r.kernel, p);
    LoadedModule const& module = kernels.get(request);
    if (!module.error.empty()) {
      d->detail = "cuBLAS: " + d->kernel + ": " + module.error;
      return d;
    }
    std::vector<PreparedLaunch> launches;
    bool const overlaps = dev.gpu.cc_major >= 9;  // programmatic stream serialization
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
      std::string const& expression = plan.launches[i].name_expression;
      auto const it = module.kernels.find(expression);
      if (it == module.kernels.end()) {
        d->detail = "cuBLAS: the launch plan names " + expression +
                    ", which the compile request did not instantiate";
        return d;
      }
      PreparedLaunch ready;
      if (LaunchStatus const s = prepare_launch(plan, i, it->second, expression, overlaps, ready);
          !s.ok()) {
        d->detail = "cuBLAS: " + d->kernel + " cannot launch here: " + s.error;
        return d;
      }
      launches.push_back(std::move(ready));
    }
    if (launches.empty()) {
      d->detail = "cuBLAS: " + d->kernel + " has an empty launch plan";
      return d;
    }
    d->launches = std::move(launches);
    d->workspace_bytes = plan.workspace_bytes;
    d->zero_workspace = plan.zero_workspace;
    d->counter_bytes = plan.counter_bytes;
    d->tensor_maps = plan.tensor_maps;
    d->problem = p;
    d->detail = "tuned: " + d->kernel + " (" + r.explanation + ")";
    return d;
  }

  /// A vendor pick: cublas:default runs the cuBLAS path; a cuBLASLt algorithm is rebuilt from
  /// its id and checked by this cuBLAS, and runs only under the cuBLAS version it was timed
  /// with. Anything refused falls back to the default cuBLAS call, saying why.
  std::shared_ptr<Decision> decide_vendor(int device, GemmCall const& call,
                                          LookupResult const& r, std::shared_ptr<Decision> d) {
    if (r.kernel->family == kCublasFamily) {
      d->detail = "cuBLAS: the table's pick (" + r.explanation + ")";
      return d;
    }
    TableEntry const* entry =
        r.entry_index >= 0 ? &index->table().entries[static_cast<std::size_t>(r.entry_index)]
                           : nullptr;
    std::string const local = cublas_version();
    if (!entry || entry->cublas_version != local) {
      d->detail = "cuBLAS: the table's cuBLASLt algorithm " + d->kernel + " was timed with cuBLAS " +
                  (entry ? entry->cublas_version : std::string("of unknown version")) +
                  ", this is cuBLAS " + local + " (re-tune to use its algorithms)";
      return d;
    }
    LtAlgoConfig const config = lt_algo_config(*r.kernel);
    std::string why;
    cublasLtHandle_t const handle = cublaslt.get(device, why);
    if (handle == nullptr) {
      d->detail = "cuBLAS: " + why;
      return d;
    }
    RowMajorGemm const shape{call.layout, call.m, call.n, call.k, nullptr, call.lda,
                             nullptr,     call.ldb, nullptr, call.ldc};
    if (cublasStatus_t const s = d->lt_desc.init(shape, lt_contract(call.precision, config));
        s != CUBLAS_STATUS_SUCCESS) {
      d->detail = "cuBLAS: cuBLASLt descriptors for " + d->kernel + ": " + cublas_status_text(s);
      return d;
    }
    if (why = lt_build_algo(handle, d->lt_desc, config, d->lt_algo, d->lt_workspace); !why.empty()) {
      d->detail = "cuBLAS: the table's cuBLASLt algorithm " + d->kernel + " was refused: " + why;
      return d;
    }
    d->cublaslt = true;
    d->lt_lda = call.lda;
    d->lt_ldb = call.ldb;
    d->lt_ldc = call.ldc;
    d->detail = "cublaslt: " + d->kernel + " (" + r.explanation + ")";
    return d;
  }

  /// Sets `d` up to run cuBLASLt's heuristic algorithm for an FP8 call (descriptors of the
  /// call's leading dimensions, the heuristic's first result), with `d.detail` saying why; when
  /// cuBLASLt offers none, `d` stays as it was and its detail says that instead.
  void attach_fp8_default(int device, GemmCall const& call, Decision& d) {
    std::string const why_default =
        "cuBLASLt's heuristic algorithm (cublasGemmEx takes no FP8) after " + d.detail;
    std::string why;
    cublasLtHandle_t const handle = cublaslt.get(device, why);
    if (handle == nullptr) {
      d.detail += "; no FP8 default: " + why;
      return;
    }
    RowMajorGemm const shape{call.layout, call.m, call.n, call.k, nullptr, call.lda,
                             nullptr,     call.ldb, nullptr, call.ldc};
    if (cublasStatus_t const s = d.lt_desc.init(shape, baseline_contract(call.precision));
        s != CUBLAS_STATUS_SUCCESS) {
      d.detail += "; no FP8 default: cuBLASLt descriptors: " + cublas_status_text(s);
      return;
    }
    // The heuristic offers only algorithms that take the descriptor's scale modes.
    if (cublasStatus_t const s = d.lt_desc.set_scales(call.scale_a, call.scale_b, call.precision);
        s != CUBLAS_STATUS_SUCCESS) {
      d.detail += "; no FP8 default: cuBLASLt " + std::string(to_string(call.precision)) +
                  " scales: " + cublas_status_text(s);
      return;
    }
    if (why = lt_heuristic_first(handle, d.lt_desc, kFp8DefaultWorkspace, d.lt_algo,
                                 d.lt_workspace);
        !why.empty()) {
      d.detail += "; no FP8 default: " + why;
      return;
    }
    d.lt_lda = call.lda;
    d.lt_ldb = call.ldb;
    d.lt_ldc = call.ldc;
    d.cublaslt = true;
    d.fp8_default = true;
    d.detail = why_default;
  }

  /// What replaces a decision whose launch failed, for this call and the later ones of its
  /// problem: the cuBLAS call, or for FP8 cuBLASLt's heuristic algorithm unless that is what
  /// failed.
  std::shared_ptr<Decision const> replacement(Decision const& failed, std::string const& failure,
                                              int device, GemmCall const& call) {
    auto r = std::make_shared<Decision>();
    r->rule = failed.rule;
    r->kernel = failed.kernel;
    if (!is_fp8(call.precision)) {
      r->detail = "cuBLAS: " + failure + "; cuBLAS from now on for this problem";
    } else if (failed.fp8_default) {
      r->detail = failure + "; nothing is left to run FP8 with (cublasGemmEx takes no FP8)";
    } else {
      r->detail = failure;
      attach_fp8_default(device, call, *r);
    }
    return r;
  }

  /// Runs a cuBLASLt decision; "" when queued, else why not (nothing was queued then).
  std::string launch_cublaslt(Decision const& d, GemmCall const& call, int device,
                              cudaStream_t stream) {
    std::string why;
    cublasLtHandle_t const handle = cublaslt.get(device, why);
    if (handle == nullptr) return why;
    LtDescriptors local;
    LtDescriptors const* desc = &d.lt_desc;
    if (call.lda != d.lt_lda || call.ldb != d.lt_ldb || call.ldc != d.lt_ldc) {
      RowMajorGemm const shape{call.layout, call.m, call.n, call.k, nullptr, call.lda,
                               nullptr,     call.ldb, nullptr, call.ldc};
      if (cublasStatus_t const s = local.init(shape, d.lt_desc.contract());
          s != CUBLAS_STATUS_SUCCESS) {
        return "cuBLASLt descriptors: " + cublas_status_text(s);
      }
      desc = &local;
    } else if (is_fp8(call.precision)) {
      local = d.lt_desc;  // the shared descriptors are read by other threads' calls
      desc = &local;
    }
    if (is_fp8(call.precision)) {
      if (cublasStatus_t const s =
              local.set_scales(call.scale_a, call.scale_b, call.precision);
          s != CUBLAS_STATUS_SUCCESS) {
        return "cuBLASLt FP8 scales: " + cublas_status_text(s);
      }
    }
    WorkspaceLease workspace;
    if (d.lt_workspace > 0) {
      if (cudaError_t e = workspaces.acquire(device, stream, d.lt_workspace, workspace);
          e != cudaSuccess) {
        return std::string("workspace: ") + cudaGetErrorName(e);
      }
    }
    cublasStatus_t const s = lt_matmul(handle, *desc, d.lt_algo, call.alpha, call.a, call.b,
                                       call.beta, call.c, workspace.ptr, d.lt_workspace, stream);
    WorkspacePool::release(workspace, stream);
    if (s != CUBLAS_STATUS_SUCCESS) return "cublasLtMatmul: " + cublas_status_text(s);
    return {};
  }

  /// Queues the tuned launches. Returns the error of the first launch that failed and whether
  /// anything was queued before it (then C may be partly written and cuBLAS must not rerun).
  cudaError_t launch(Decision const& d, GemmCall const& call, int device, cudaStream_t stream,
                     bool& partial, std::string& why) {
    partial = false;
    GemmArgs args{call.m, call.n, call.k, call.lda, call.ldb, call.ldc, call.a, call.b,
                  call.c, nullptr, nullptr, call.alpha, call.beta, call.scale_a, call.scale_b};
    WorkspaceLease workspace, tile_counters;
    auto release_all = [&] {
      WorkspacePool::release(workspace, stream);
      WorkspacePool::release(tile_counters, stream);
    };
    if (d.workspace_bytes > 0) {
      std::size_t const bytes = static_cast<std::size_t>(d.workspace_bytes);
      if (cudaError_t e = workspaces.acquire(device, stream, bytes, workspace); e != cudaSuccess) {
        return e;
      }
      if (d.zero_workspace) {
        if (cudaError_t e = cudaMemsetAsync(workspace.ptr, 0, bytes, stream); e != cudaSuccess) {
          release_all();
          return e;
        }
      }
    }
    if (d.counter_bytes > 0) {
      std::size_t const bytes = static_cast<std::size_t>(d.counter_bytes);
      if (cudaError_t e = counters.acquire(device, stream, bytes, tile_counters);
          e != cudaSuccess) {
        release_all();
        return e;
      }
    }
    // Descriptors may point into the workspace (operand copies), so they are encoded after it
    // exists; a stream keeps its block, so the encoder's remembered pointer sets keep matching.
    args.workspace = workspace.ptr;
    args.counters = static_cast<unsigned*>(tile_counters.ptr);
    TensorMaps maps{};
    if (!d.tensor_maps.empty()) {
      why = d.encoder.encode(d.tensor_maps, d.problem, args, maps);
      if (!why.empty()) {
        release_all();
        return cudaErrorInvalidValue;  // no kernel queued: the caller falls back to cuBLAS
      }
    }
    std::size_t queued = 0;
    LaunchStatus const status =
        queue_launches(d.launches, args, maps, stream, LaunchCheck::kReturnCode, queued);
    cudaError_t const result =
        status.ok() ? cudaSuccess : static_cast<cudaError_t>(status.cuda_error);
    partial = !status.ok() && queued > 0;
    release_all();
    return result;
  }
};

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Runtime::Runtime(std::filesystem::path const& table, RuntimeOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->index.emplace(read_tuning_table(table));
  impl_->table_source = table.string();
}

Runtime::~Runtime() = default;

std::size_t Runtime::table_entries() const {
  return impl_->index ? impl_->index->table().entries.size() : 0;
}

std::string Runtime::describe() const {
  Impl const& d = *impl_;
  std::string s;
  if (d.index) {
    TuningTable const& t = d.index->table();
    s = "table " + d.table_source + " (" + std::to_string(t.entries.size()) + " entries, " +
        std::to_string(t.defaults.size()) + " defaults, " + std::to_string(t.gpus.size()) +
        " GPU(s), generated " + t.generated_at + " by gemmtune " + t.gemmtune_version + ")";
  } else {
    s = "no table (cuBLAS for every call)";
  }
  s += d.kernels.cache_dir().empty()
           ? "; no cubin disk cache" + (d.kernels.cache_problem().empty() ? std::string()
                                                                         : " (" + d.kernels.cache_problem() + ")")
           : "; cubins cached in " + d.kernels.cache_dir();
  if (!d.options.use_tuned) s += "; tuned kernels off";
  return s;
}

GemmStatus Runtime::gemm(Precision precision, Layout layout, std::int64_t m, std::int64_t n,
                         std::int64_t k, float alpha, void const* a, std::int64_t lda,
                         void const* b, std::int64_t ldb, float beta, void* c, std::int64_t ldc,
                         CUstream_st* stream, GemmInfo* info) noexcept {
  return run(GemmCall{precision, layout, m, n, k, alpha, beta, a, lda, b, ldb, c, ldc}, stream,
             info);
}

GemmStatus Runtime::gemm(Precision precision, Layout layout, std::int64_t m, std::int64_t n,
                         std::int64_t k, float alpha, void const* a, std::int64_t lda,
                         void const* b, std::int64_t ldb, float beta, void* c, std::int64_t ldc,
                         Fp8Scales scales, CUstream_st* stream, GemmInfo* info) noexcept {
  return run(GemmCall{precision, layout, m,        n,   k,   alpha, beta, a, lda, b, ldb, c, ldc,
                      scales.a,  scales.b},
             stream, info);
}

GemmStatus Runtime::run(GemmCall const& call, CUstream_st* stream, GemmInfo* info) noexcept {
  try {
    if (std::string why = invalid_reason(call); !why.empty()) {
      fill(info, GemmStatus::kInvalidArgument, GemmPath::kNone, nullptr, 0, std::move(why));
      return GemmStatus::kInvalidArgument;
    }
    int const align = call_alignment(call);
    if (call.m == 0 || call.n == 0) {
      fill(info, GemmStatus::kOk, GemmPath::kNone, nullptr, align, "empty C: nothing to do");
      return GemmStatus::kOk;
    }
    Impl& d = *impl_;
    int device = 0;
    if (cudaError_t const e = cudaGetDevice(&device); e != cudaSuccess) {
      (void)cudaGetLastError();
      fill(info, GemmStatus::kNoDevice, GemmPath::kNone, nullptr, align,
           std::string("no usable CUDA device (cudaGetDevice: ") + cudaGetErrorString(e) + ")");
      return GemmStatus::kNoDevice;
    }
    DecisionKey const key{device, call.precision, call.layout, align, call.m, call.n, call.k};
    std::shared_ptr<Decision const> decision = d.find(key);
    if (!decision) {
      DeviceInfo const dev = d.device_info(device);
      if (!dev.ok) {
        fill(info, GemmStatus::kNoDevice, GemmPath::kNone, nullptr, align, dev.reason);
        return GemmStatus::kNoDevice;
      }
      std::lock_guard<std::mutex> lock(d.build_mutex);
      decision = d.find(key);  // another thread may have decided meanwhile
      if (!decision) {
        decision = d.decide(device, dev, call);
        d.publish(key, decision);
      }
    }

    cudaStream_t const s = reinterpret_cast<cudaStream_t>(stream);
    std::string fallback_detail;
    // A failed launch is replaced once per path: a cuBLASLt algorithm or a tuned kernel by the
    // cuBLAS call, or for FP8 by cuBLASLt's heuristic algorithm, which is tried in turn.
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (decision->cublaslt) {
        std::string const why = d.launch_cublaslt(*decision, call, device, s);
        if (why.empty()) {
          // A replacement's detail already names what failed before it.
          fill(info, GemmStatus::kOk, GemmPath::kCublasLt, decision.get(), align);
          return GemmStatus::kOk;
        }
        (void)cudaGetLastError();
        fallback_detail = (fallback_detail.empty() ? std::string() : fallback_detail + "; then ") +
                          (decision->fp8_default ? std::string("cuBLASLt's heuristic algorithm")
                                                 : "the cuBLASLt algorithm " + decision->kernel) +
                          " failed (" + why + ")";
      } else if (decision->tuned()) {
        bool partial = false;
        std::string why;
        cudaError_t const e = d.launch(*decision, call, device, s, partial, why);
        if (e == cudaSuccess) {
          fill(info, GemmStatus::kOk, GemmPath::kTuned, decision.get(), align);
          return GemmStatus::kOk;
        }
        (void)cudaGetLastError();
        std::string const failed = "launching " + decision->kernel + " failed (" +
                                   (why.empty() ? std::string(cudaGetErrorName(e)) : why) + ")";
        if (partial) {
          d.publish(key, d.replacement(*decision, failed, device, call));
          fill(info, GemmStatus::kCudaError, GemmPath::kTuned, decision.get(), align,
               "cuBLAS: " + failed + " after earlier launches of its plan; C is undefined");
          return GemmStatus::kCudaError;
        }
        fallback_detail = failed;
      } else {
        break;
      }
      decision = d.replacement(*decision, fallback_detail, device, call);
      d.publish(key, decision);
    }
    if (is_fp8(call.precision)) {
      // cublasGemmEx takes no FP8: with no cuBLASLt algorithm left there is nothing to run.
      GemmStatus const status =
          fallback_detail.empty() ? GemmStatus::kCublasError : GemmStatus::kCudaError;
      fill(info, status, GemmPath::kNone, decision.get(), align, decision->detail);
      return status;
    }
    if (!fallback_detail.empty()) fallback_detail = "cuBLAS: " + fallback_detail;
    std::string const error = d.cublas.gemm(device, call, s);
    if (!error.empty()) {
      GemmStatus const status =
          fallback_detail.empty() ? GemmStatus::kCublasError : GemmStatus::kCudaError;
      fill(info, status, GemmPath::kNone, decision.get(), align,
           (fallback_detail.empty() ? std::string() : fallback_detail + "; then ") + error);
      return status;
    }
    fill(info, GemmStatus::kOk, GemmPath::kCublas, decision.get(), align,
         fallback_detail.empty() ? std::string() : fallback_detail);
    return GemmStatus::kOk;
  } catch (std::exception const& e) {
    fill(info, GemmStatus::kCudaError, GemmPath::kNone, nullptr, 0,
         std::string("internal error: ") + e.what());
    return GemmStatus::kCudaError;
  } catch (...) {
    fill(info, GemmStatus::kCudaError, GemmPath::kNone, nullptr, 0, "internal error");
    return GemmStatus::kCudaError;
  }
}

}  // namespace gemmtune
