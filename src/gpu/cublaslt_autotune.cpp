// cuBLASLt autotuning, with the row-major → column-major mapping of cublas_contract.hpp: the
// first operand (cuBLASLt's "A") is our B buffer, the second our A buffer, the output is Cᵀ
// (N×M). Matrix layouts describe the stored matrix, before the op is applied.
#include "src/gpu/cublaslt_autotune.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "src/core/error.hpp"
#include "src/gpu/cublas_handle.hpp"

namespace gemmtune {
namespace {

template <class T, cublasStatus_t (*Destroy)(T)>
struct LtDeleter {
  void operator()(T p) const { (void)Destroy(p); }
};
using MatmulDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>,
                                   LtDeleter<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>>;
using MatrixLayout =
    std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>,
                    LtDeleter<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>>;
using Preference =
    std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                    LtDeleter<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>>;

/// Descriptors of one problem for one compute type.
struct LtProblem {
  MatmulDesc op;
  MatrixLayout first, second, out;
};

cublasStatus_t describe(Problem const& p, CublasContract const& c, LtProblem& d) {
  cublasLtMatmulDesc_t op = nullptr;
  if (auto s = cublasLtMatmulDescCreate(&op, c.compute, CUDA_R_32F); s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  d.op.reset(op);
  ColumnMajorGemm const cm = column_major(p.layout, p.m, p.n, p.k);
  cublasOperation_t const op_first = cm.op_first;
  cublasOperation_t const op_second = cm.op_second;
  if (auto s = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &op_first,
                                              sizeof op_first);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (auto s = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &op_second,
                                              sizeof op_second);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  auto const u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  cublasLtMatrixLayout_t l = nullptr;
  if (auto s =
          cublasLtMatrixLayoutCreate(&l, c.ab_type, u(cm.first_rows), u(cm.first_cols), p.ldb());
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  d.first.reset(l);
  if (auto s = cublasLtMatrixLayoutCreate(&l, c.ab_type, u(cm.second_rows), u(cm.second_cols),
                                          p.lda());
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  d.second.reset(l);
  if (auto s = cublasLtMatrixLayoutCreate(&l, c.c_type, u(cm.m), u(cm.n), p.ldc());
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  d.out.reset(l);
  return CUBLAS_STATUS_SUCCESS;
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

LtAutotuneResult CublasLtAutotuner::run(Problem const& p, RotationPool const& pool,
                                        TimingSpec const& spec, DeviceSensors const* sensors) {
  LtAutotuneResult out;
  CublasContract const pinned = baseline_contract(p.precision);
  // For fp32, cuBLASLt may have no pedantic algorithm for a shape; plain 32F compute with FP32
  // types is still no-TF32 in cuBLASLt (TF32 is opt-in via FAST_TF32), so it stands in.
  std::vector<cublasComputeType_t> computes = {pinned.compute};
  if (pinned.compute == CUBLAS_COMPUTE_32F_PEDANTIC) computes.push_back(CUBLAS_COMPUTE_32F);

  float const alpha = 1.0f, beta = 0.0f;
  TimingSpec quick = spec;
  quick.warmup_ms = std::min(spec.warmup_ms, 5.0);
  quick.target_ms = std::min(spec.target_ms, 5.0);
  quick.repeats = std::min(spec.repeats, 3);
  quick.early_stop_ms = 0.0;

  std::string why_not;
  for (cublasComputeType_t const compute : computes) {
    CublasContract contract = pinned;
    contract.compute = compute;
    LtProblem d;
    std::vector<cublasLtMatmulHeuristicResult_t> heur(kLtAlgorithms);
    int returned = 0;
    cublasStatus_t status = describe(p, contract, d);
    cublasLtMatmulPreference_t pref_raw = nullptr;
    if (status == CUBLAS_STATUS_SUCCESS) status = cublasLtMatmulPreferenceCreate(&pref_raw);
    Preference const pref(pref_raw);
    std::uint64_t const ws = workspace_.bytes();
    if (status == CUBLAS_STATUS_SUCCESS) {
      status = cublasLtMatmulPreferenceSetAttribute(
          pref_raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    }
    if (status == CUBLAS_STATUS_SUCCESS) {
      status = cublasLtMatmulAlgoGetHeuristic(handle_, d.op.get(), d.first.get(),
                                              d.second.get(), d.out.get(), d.out.get(), pref_raw,
                                              kLtAlgorithms, heur.data(), &returned);
    }
    if (status != CUBLAS_STATUS_SUCCESS || returned == 0) {
      why_not = "cuBLASLt heuristic found no algorithm: " + cublas_status_text(status);
      continue;
    }

    auto launcher = [&](cublasLtMatmulAlgo_t const* algo) -> TimedLaunch {
      return [&, algo](int set) -> LaunchStatus {
        GemmPointers const g = pool.set(set);
        cublasStatus_t const s =
            cublasLtMatmul(handle_, d.op.get(), &alpha, g.b, d.first.get(), g.a, d.second.get(),
                           &beta, g.c, d.out.get(), g.c, d.out.get(), algo, workspace_.data(),
                           workspace_.bytes(), stream_);
        if (s != CUBLAS_STATUS_SUCCESS) return {0, "cublasLtMatmul: " + cublas_status_text(s)};
        return {};
      };
    };

    double best_ms = 0.0;
    out.algo_index = -1;
    out.algos_tried = 0;
    for (int i = 0; i < returned; ++i) {
      auto const& h = heur[static_cast<std::size_t>(i)];
      if (h.state != CUBLAS_STATUS_SUCCESS) continue;
      TimingResult const t = time_launches(launcher(&h.algo), pool.set_count(), quick, stream_);
      if (!t.failure.ok()) {
        // A CUDA error here belongs to the context, not the algorithm: let the session see it.
        if (t.failure.cuda_error != 0) {
          out.reason = "cuBLASLt algorithm " + std::to_string(i) + ": " + t.failure.error;
          out.timing.failure = t.failure;
          return out;
        }
        why_not = "no cuBLASLt algorithm ran: " + t.failure.error;
        continue;
      }
      ++out.algos_tried;
      if (out.algo_index < 0 || t.median_ms < best_ms) {
        best_ms = t.median_ms;
        out.algo_index = i;
      }
    }
    if (out.algo_index < 0) continue;

    out.timing = time_launches(launcher(&heur[static_cast<std::size_t>(out.algo_index)].algo),
                               pool.set_count(), spec, stream_, sensors);
    if (!out.timing.failure.ok()) {
      out.reason = "cuBLASLt best algorithm: " + out.timing.failure.error;
      return out;
    }
    out.ok = true;
    if (compute != pinned.compute) {
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
