// cuBLASLt candidates and their timing (cublaslt_autotune.hpp). Every candidate is the algorithm
// rebuilt from its canonical config (lt_build_algo), never the heuristic's opaque struct, so the
// figure belongs to exactly what the id reproduces in the runtime.
#include "src/gpu/cublaslt_autotune.hpp"

#include <algorithm>
#include <utility>
#include <chrono>
#include <memory>
#include <set>
#include <vector>

#include "src/core/error.hpp"
#include "src/gpu/cublas_handle.hpp"

namespace gemmtune {
namespace {

using Preference =
    std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                    decltype([](cublasLtMatmulPreference_t p) { (void)cublasLtMatmulPreferenceDestroy(p); })>;

/// Split-K counts a varied algorithm is tried with.
constexpr int kSplitCounts[] = {1, 2, 3, 4, 6, 8, 16};

/// The reduction scheme a split-K variation uses: accumulation in the compute type where the
/// algorithm offers it (FP32 partials, as our own split-K sums), else what it offers.
std::int64_t reduction_for(std::uint32_t mask) {
  for (std::uint32_t const scheme : {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                                     CUBLASLT_REDUCTION_SCHEME_INPLACE,
                                     CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE}) {
    if (mask & scheme) return scheme;
  }
  return CUBLASLT_REDUCTION_SCHEME_NONE;
}

template <class T>
T capability(cublasLtMatmulAlgo_t const& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  T v{};
  std::size_t written = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &v, sizeof v, &written) !=
      CUBLAS_STATUS_SUCCESS) {
    return T{};
  }
  return v;
}

/// The first few values of an array capability (tile or stages ids).
std::vector<std::uint32_t> capability_list(cublasLtMatmulAlgo_t const& algo,
                                           cublasLtMatmulAlgoCapAttributes_t attr) {
  std::size_t bytes = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS ||
      bytes == 0) {
    return {};
  }
  std::vector<std::uint32_t> v(std::min<std::size_t>(bytes / sizeof(std::uint32_t), 256));
  std::size_t written = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, v.data(), v.size() * sizeof v[0],
                                        &written) != CUBLAS_STATUS_SUCCESS) {
    return {};
  }
  v.resize(written / sizeof(std::uint32_t));
  return v;
}

TimingSpec quick_spec(TimingSpec const& spec) {
  TimingSpec quick = spec;
  quick.warmup_ms = std::min(spec.warmup_ms, 5.0);
  quick.target_ms = std::min(spec.target_ms, 5.0);
  quick.repeats = std::min(spec.repeats, 3);
  quick.early_stop_ms = 0.0;
  return quick;
}

/// The compute choices of a precision: the contract's, then (fp32) plain 32F.
std::vector<std::int64_t> compute_choices(Precision p) {
  if (baseline_contract(p).compute == CUBLAS_COMPUTE_32F_PEDANTIC) return {0, 1};
  return {0};
}

RowMajorGemm packed_shape(Problem const& p) {
  return {p.layout, p.m, p.n, p.k, nullptr, p.lda(), nullptr, p.ldb(), nullptr, p.ldc()};
}

}  // namespace

CublasLtAutotuner::CublasLtAutotuner(cudaStream_t stream) : stream_(stream) {
  if (auto s = cublasLtCreate(&handle_); s != CUBLAS_STATUS_SUCCESS) {
    handle_ = nullptr;
    throw Error("cublasLtCreate failed: " + cublas_status_text(s));
  }
  workspace_ = DeviceBuffer(kLtWorkspaceBytes);
}

CublasLtAutotuner::~CublasLtAutotuner() {
  if (handle_ != nullptr) (void)cublasLtDestroy(handle_);
}

std::vector<CublasLtAutotuner::Candidate> CublasLtAutotuner::enumerate(Problem const& p,
                                                                      LtDescriptors const& d,
                                                                      std::int64_t compute) {
  std::vector<Candidate> out;
  std::set<std::string> seen;
  auto add = [&](LtAlgoConfig const& c) {
    if (out.size() >= static_cast<std::size_t>(kLtMaxCandidates)) return false;
    KernelConfig const id = to_kernel_config(c);
    // A value outside what an id can hold (cuBLASLt reports SPLITK=-1 for some heuristic
    // results) could not be stored and rebuilt: such an algorithm is not a candidate.
    if (!vendor_reject_reason(id).empty()) return false;
    if (!seen.insert(id.id()).second) return false;
    Candidate cand{c, {}, 0};
    if (!lt_build_algo(handle_, d, c, cand.algo, cand.workspace).empty()) return false;
    if (cand.workspace > workspace_.bytes()) return false;
    out.push_back(cand);
    return true;
  };

  // 1. The heuristic's ranking.
  std::vector<LtAlgoConfig> ranked;
  {
    cublasLtMatmulPreference_t raw = nullptr;
    if (cublasLtMatmulPreferenceCreate(&raw) != CUBLAS_STATUS_SUCCESS) return out;
    Preference const pref(raw);
    std::uint64_t const ws = workspace_.bytes();
    (void)cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                               sizeof ws);
    std::vector<cublasLtMatmulHeuristicResult_t> heur(kLtHeuristicAlgos);
    int returned = 0;
    if (cublasLtMatmulAlgoGetHeuristic(handle_, d.op(), d.first(), d.second(), d.out(), d.out(),
                                       raw, kLtHeuristicAlgos, heur.data(), &returned) ==
        CUBLAS_STATUS_SUCCESS) {
      for (int i = 0; i < returned; ++i) {
        auto const& h = heur[static_cast<std::size_t>(i)];
        LtAlgoConfig c;
        if (h.state != CUBLAS_STATUS_SUCCESS || !lt_read_algo(h.algo, compute, c)) continue;
        ranked.push_back(c);
        add(c);
        // The heuristic often ranks split-K summed in place in the output type first; in bf16
        // and fp16 at large K those partial sums fail the tolerance pass, so the same algorithm
        // with FP32 partial sums is timed beside it.
        if (c.split_k > 1 && c.reduction != CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE &&
            (capability<std::uint32_t>(h.algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK) &
             CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE) != 0) {
          LtAlgoConfig v = c;
          v.reduction = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
          add(v);
        }
      }
    }
  }

  // 2. One knob at a time around the best few: split-K and CTA swizzling, where offered.
  for (std::size_t i = 0; i < ranked.size() && i < static_cast<std::size_t>(kLtVariedAlgos); ++i) {
    LtAlgoConfig const& base = ranked[i];
    cublasLtMatmulAlgo_t algo{};
    CublasContract const& c = d.contract();
    if (cublasLtMatmulAlgoInit(handle_, c.compute, CUDA_R_32F, c.b_type, c.a_type, c.c_type,
                               c.c_type, static_cast<int>(base.algo), &algo) != CUBLAS_STATUS_SUCCESS) {
      continue;
    }
    if (capability<std::int32_t>(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0) {
      std::int64_t const scheme =
          reduction_for(capability<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK));
      for (int const split : kSplitCounts) {
        if (split == base.split_k || split > p.k / 16) continue;
        LtAlgoConfig v = base;
        v.split_k = split;
        v.reduction = split == 1 ? std::int64_t{CUBLASLT_REDUCTION_SCHEME_NONE} : scheme;
        add(v);
      }
    }
    if (capability<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT) != 0) {
      LtAlgoConfig v = base;
      v.swizzle = 1 - base.swizzle;
      add(v);
    }
  }

  // 3. Algorithm ids the heuristic did not return, with their defaults (else their first tile
  //    and stages).
  std::set<std::int64_t> ranked_ids;
  for (LtAlgoConfig const& c : ranked) ranked_ids.insert(c.algo);
  CublasContract const& c = d.contract();
  std::vector<int> ids(64);
  int returned = 0;
  if (cublasLtMatmulAlgoGetIds(handle_, c.compute, CUDA_R_32F, c.b_type, c.a_type, c.c_type,
                               c.c_type, static_cast<int>(ids.size()), ids.data(), &returned) ==
      CUBLAS_STATUS_SUCCESS) {
    int extra = 0;
    for (int i = 0; i < returned && extra < kLtExtraIds; ++i) {
      if (ids[static_cast<std::size_t>(i)] < 0 || ids[static_cast<std::size_t>(i)] > kMaxLtAlgoId ||
          ranked_ids.count(ids[static_cast<std::size_t>(i)])) {
        continue;
      }
      LtAlgoConfig v;
      v.algo = ids[static_cast<std::size_t>(i)];
      v.compute = compute;
      bool added = add(v);
      if (!added) {
        cublasLtMatmulAlgo_t algo{};
        if (cublasLtMatmulAlgoInit(handle_, c.compute, CUDA_R_32F, c.b_type, c.a_type, c.c_type,
                                   c.c_type, static_cast<int>(v.algo), &algo) == CUBLAS_STATUS_SUCCESS) {
          std::vector<std::uint32_t> const tiles = capability_list(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
          std::vector<std::uint32_t> const stages =
              capability_list(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
          if (!tiles.empty()) v.tile = tiles.back();
          if (!stages.empty()) v.stages = stages.front();
          added = add(v);
        }
      }
      if (added) ++extra;
    }
  }
  return out;
}

std::string CublasLtAutotuner::prepare(Problem const& p, LtAlgoConfig const& config) {
  has_prepared_ = false;
  if (config.compute == 1 && baseline_contract(p.precision).compute != CUBLAS_COMPUTE_32F_PEDANTIC) {
    return "COMPUTE=1 (plain FP32 in place of pedantic) applies to fp32 only";
  }
  if (auto s = init_descriptors(prepared_desc_, p, config); s != CUBLAS_STATUS_SUCCESS) {
    return "cuBLASLt descriptors: " + cublas_status_text(s);
  }
  std::size_t ws = 0;
  if (std::string why = lt_build_algo(handle_, prepared_desc_, config, prepared_algo_, ws);
      !why.empty()) {
    return why;
  }
  if (ws > workspace_.bytes()) {
    return "the algorithm needs " + std::to_string(ws) + " bytes of workspace, more than the " +
           std::to_string(workspace_.bytes()) + " offered";
  }
  has_prepared_ = true;
  return {};
}

cublasStatus_t CublasLtAutotuner::init_descriptors(LtDescriptors& d, Problem const& p,
                                                   LtAlgoConfig const& config) {
  if (auto s = d.init(packed_shape(p), lt_contract(p.precision, config)); s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (!is_fp8(p.precision)) return CUBLAS_STATUS_SUCCESS;
  if (scale_a_ == nullptr || scale_b_ == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  return d.set_scales(scale_a_, scale_b_, p.precision);
}

void CublasLtAutotuner::use_scales(float const* scale_a, float const* scale_b) {
  scale_a_ = scale_a;
  scale_b_ = scale_b;
  default_for_.reset();  // its descriptors hold the old pointers
}

LaunchStatus CublasLtAutotuner::launch_default(Problem const& p, void const* a, void const* b,
                                               void* c, float alpha, float beta) {
  if (!default_for_ || !(*default_for_ == p)) {
    default_for_.reset();
    if (auto s = init_descriptors(default_desc_, p, LtAlgoConfig{}); s != CUBLAS_STATUS_SUCCESS) {
      return {0, "cuBLASLt descriptors: " + cublas_status_text(s)};
    }
    std::size_t needed = 0;  // within the workspace it was offered
    if (std::string why = lt_heuristic_first(handle_, default_desc_, workspace_.bytes(),
                                             default_algo_, needed);
        !why.empty()) {
      return {0, why + " for " + p.describe()};
    }
    default_for_ = p;
  }
  cublasStatus_t const s = lt_matmul(handle_, default_desc_, default_algo_, alpha, a, b, beta, c,
                                     workspace_.data(), workspace_.bytes(), stream_);
  if (s != CUBLAS_STATUS_SUCCESS) return {0, "cublasLtMatmul: " + cublas_status_text(s)};
  return {};
}

LaunchStatus CublasLtAutotuner::launch(void const* a, void const* b, void* c, float alpha,
                                       float beta) {
  if (!has_prepared_) return {0, "no cuBLASLt algorithm prepared"};
  cublasStatus_t const s = lt_matmul(handle_, prepared_desc_, prepared_algo_, alpha, a, b, beta, c,
                                     workspace_.data(), workspace_.bytes(), stream_);
  if (s != CUBLAS_STATUS_SUCCESS) return {0, "cublasLtMatmul: " + cublas_status_text(s)};
  return {};
}

LtAutotuneResult CublasLtAutotuner::time_one(Problem const& p, LtAlgoConfig const& config,
                                             RotationPool const& pool, TimingSpec const& spec,
                                             DeviceSensors const* sensors) {
  LtAutotuneResult out;
  out.winner = config;
  if (std::string why = prepare(p, config); !why.empty()) {
    out.reason = why;
    return out;
  }
  out.algos_checked = 1;
  out.timing = time_launches(
      [&](int set) {
        GemmPointers const g = pool.set(set);
        return launch(g.a, g.b, g.c, 1.0f, 0.0f);
      },
      pool.set_count(), spec, stream_, sensors);
  if (!out.timing.failure.ok()) {
    out.reason = "cuBLASLt " + to_kernel_config(config).id() + ": " + out.timing.failure.error;
    return out;
  }
  out.ok = true;
  out.algos_tried = 1;
  out.algo_index = 0;
  return out;
}

LtAutotuneResult CublasLtAutotuner::run(Problem const& p, RotationPool const& pool,
                                        TimingSpec const& spec, DeviceSensors const* sensors) {
  LtAutotuneResult out;
  TimingSpec const quick = quick_spec(spec);
  std::string why_not = "cuBLASLt offered no algorithm this problem can run";
  for (std::int64_t const compute : compute_choices(p.precision)) {
    LtAlgoConfig probe;
    probe.compute = compute;
    LtDescriptors d;
    if (auto s = init_descriptors(d, p, probe); s != CUBLAS_STATUS_SUCCESS) {
      why_not = "cuBLASLt descriptors: " + cublas_status_text(s);
      continue;
    }
    std::vector<Candidate> const candidates = enumerate(p, d, compute);
    out.algos_checked = static_cast<int>(candidates.size());
    std::vector<LtRankedAlgo> ranked;
    out.algo_index = -1;
    out.algos_tried = 0;
    auto const start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      // Heuristic results come first: on a large problem, where each quick timing takes a
      // while, the time cap ends the list after the most promising ones.
      double const spent_ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start)
                                  .count();
      if (out.algos_tried > 0 && spent_ms > kLtTimingCapMs) break;
      Candidate const& cand = candidates[i];
      TimingResult const t = time_launches(
          [&](int set) -> LaunchStatus {
            GemmPointers const g = pool.set(set);
            cublasStatus_t const s = lt_matmul(handle_, d, cand.algo, 1.0f, g.a, g.b, 0.0f, g.c,
                                               workspace_.data(), workspace_.bytes(), stream_);
            if (s != CUBLAS_STATUS_SUCCESS) return {0, "cublasLtMatmul: " + cublas_status_text(s)};
            return {};
          },
          pool.set_count(), quick, stream_);
      if (!t.failure.ok()) {
        // A CUDA error here belongs to the context, not the algorithm: let the session see it.
        if (t.failure.cuda_error != 0) {
          out.reason = "cuBLASLt " + to_kernel_config(cand.config).id() + ": " + t.failure.error;
          out.timing.failure = t.failure;
          return out;
        }
        why_not = "no cuBLASLt algorithm ran: " + t.failure.error;
        continue;
      }
      ++out.algos_tried;
      ranked.push_back({cand.config, static_cast<int>(i), t.median_ms});
    }
    if (ranked.empty()) continue;
    // Fastest first; equal figures in the heuristic's order.
    std::stable_sort(ranked.begin(), ranked.end(), [](LtRankedAlgo const& a, LtRankedAlgo const& b) {
      return a.short_ms < b.short_ms;
    });
    int const tried = out.algos_tried, checked = out.algos_checked;
    out = time_one(p, ranked.front().config, pool, spec, sensors);
    out.algo_index = ranked.front().index;
    out.algos_tried = tried;
    out.algos_checked = checked;
    out.ranked = std::move(ranked);
    if (out.ok && compute == 1) {
      out.reason = "cuBLASLt ran no pedantic FP32 algorithm; used CUBLAS_COMPUTE_32F (no TF32)";
    }
    return out;
  }
  out.algo_index = -1;
  out.algos_tried = 0;
  out.reason = why_not;
  return out;
}

}  // namespace gemmtune
