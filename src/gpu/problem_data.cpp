// Per-problem data: input generation streams, references and bound matrices via cuBLAS.
#include "src/gpu/problem_data.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/error.hpp"
#include "src/gpu/cublas_handle.hpp"
#include "src/gpu/host_inputs.hpp"
#include "src/launch/cuda_errors.hpp"

namespace gemmtune {
namespace {

// Independent random streams per operand and set.
constexpr std::uint64_t kStreamA = 1, kStreamB = 2, kStreamC = 3;
constexpr std::uint64_t kExactOffset = 10;

/// Small-integer range whose every partial sum stays an exact FP32 integer (|sum| ≤ 2^24).
int exact_range(std::int64_t k) { return k <= (std::int64_t{1} << 22) ? 2 : 1; }

}  // namespace

void upload(void* device, void const* host, std::size_t bytes, cudaStream_t stream) {
  check_cuda(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync (upload)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (upload)");
}

void download(void* host, void const* device, std::size_t bytes, cudaStream_t stream) {
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (before download)");
  check_cuda(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync (download)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (download)");
}

ProblemData::ProblemData(Problem const& p, std::uint64_t seed, cudaStream_t stream)
    : problem_(p), seed_(seed), stream_(stream) {
  problem_.align = 0;
  problem_ = problem_.resolved();
  auto const mk = static_cast<std::size_t>(p.m * p.k), kn = static_cast<std::size_t>(p.k * p.n);
  normal_ = make_set(random_normal(mk, seed, kStreamA), random_normal(kn, seed, kStreamB));
  c_ = DeviceBuffer(c_bytes(), kGuardBytes);
  if (is_fp8(problem_.precision)) {
    // Each operand's scales start on 16 bytes: cuBLASLt refuses an FP8 matmul whose scale
    // pointer is not 16-byte aligned (CUBLAS_STATUS_NOT_SUPPORTED from cublasLtMatmul, after its
    // heuristic offered algorithms; seen on the H200 with cuBLAS 13.1 at an offset of 4 or 8
    // bytes). B's follow A's, rounded up to 4 floats, in the precision's layouts.
    Problem const& pr = problem_;
    std::size_t const a_count = static_cast<std::size_t>(scale_a_count(pr.precision, pr.m, pr.k));
    scale_b_at_ = (a_count + 3) / 4 * 4;
    std::vector<float> scales(
        scale_b_at_ + static_cast<std::size_t>(scale_b_count(pr.precision, pr.n, pr.k)), 0.0f);
    if (block_scaled(pr.precision)) {
      for (std::int64_t kb = 0; kb < scale_blocks(pr.k); ++kb) {
        for (std::int64_t i = 0; i < pr.m; ++i) {
          scales[block_scale_a_index(pr.m, i, kb)] = block_scale_a(i, kb);
        }
        for (std::int64_t j = 0; j < pr.n; j += kScaleBlock) {
          scales[scale_b_at_ + block_scale_b_index(pr.k, j, kb)] = block_scale_b(j / kScaleBlock, kb);
        }
      }
    } else if (row_scaled(pr.precision)) {
      for (std::int64_t i = 0; i < pr.m; ++i) scales[i] = row_scale_a(i);
      for (std::int64_t j = 0; j < pr.n; ++j) scales[scale_b_at_ + j] = row_scale_b(j);
    } else {
      scales[0] = kScaleA;
      scales[scale_b_at_] = kScaleB;
    }
    scales_ = DeviceBuffer(scales.size() * sizeof(float));
    upload(scales_.data(), scales.data(), scales_.bytes(), stream_);
  }
}

float const* ProblemData::scale_a() const {
  return scales_.empty() ? nullptr : static_cast<float const*>(scales_.data());
}
float const* ProblemData::scale_b() const {
  return scales_.empty() ? nullptr : static_cast<float const*>(scales_.data()) + scale_b_at_;
}

bool ProblemData::holds(Problem const& p, std::uint64_t seed) const {
  return seed == seed_ && p.m == problem_.m && p.n == problem_.n && p.k == problem_.k &&
         p.precision == problem_.precision && p.layout == problem_.layout;
}

std::size_t ProblemData::a_bytes() const {
  return static_cast<std::size_t>(problem_.m * problem_.k) *
         static_cast<std::size_t>(input_bytes(problem_.precision));
}
std::size_t ProblemData::b_bytes() const {
  return static_cast<std::size_t>(problem_.k * problem_.n) *
         static_cast<std::size_t>(input_bytes(b_storage_precision(problem_.precision)));
}
std::size_t ProblemData::c_bytes() const {
  return static_cast<std::size_t>(problem_.m * problem_.n) *
         static_cast<std::size_t>(output_bytes(problem_.precision));
}

InputSet ProblemData::make_set(std::vector<float> const& a, std::vector<float> const& b) {
  InputSet s;
  s.host_a = to_storage(a, problem_.precision);
  s.host_b = to_storage(b, b_storage_precision(problem_.precision));
  s.a = DeviceBuffer(s.host_a.size(), kGuardBytes);
  s.b = DeviceBuffer(s.host_b.size(), kGuardBytes);
  upload(s.a.data(), s.host_a.data(), s.host_a.size(), stream_);
  upload(s.b.data(), s.host_b.data(), s.host_b.size(), stream_);
  return s;
}

InputSet& ProblemData::exact() {
  if (!exact_) {
    auto const mk = static_cast<std::size_t>(problem_.m * problem_.k);
    auto const kn = static_cast<std::size_t>(problem_.k * problem_.n);
    int const range = exact_range(problem_.k);
    exact_ = std::make_unique<InputSet>(
        make_set(random_small_integers(mk, seed_, kExactOffset + kStreamA, range),
                 random_small_integers(kn, seed_, kExactOffset + kStreamB, range)));
  }
  return *exact_;
}

std::vector<float> ProblemData::initial_c(InputSet const& set) const {
  return from_storage(set.host_c0, output_precision(problem_.precision));
}

void ProblemData::ensure_reference(InputSet& set, float alpha, float beta, bool with_bound,
                                   cublasHandle_t handle) {
  if (set.has_reference && set.ref_alpha == alpha && set.ref_beta == beta &&
      (!with_bound || !set.bound_s.empty())) {
    return;
  }
  auto const mn = static_cast<std::size_t>(problem_.m * problem_.n);
  if (beta != 0.0f && set.host_c0.empty()) {
    bool const integer_set = &set != &normal_;
    std::vector<float> const c0 =
        integer_set ? random_small_integers(mn, seed_, kExactOffset + kStreamC, 2)
                    : random_normal(mn, seed_, kStreamC);
    set.host_c0 = to_storage(c0, output_precision(problem_.precision));
  }
  if (beta != 0.0f && set.c0.empty()) {
    set.c0 = DeviceBuffer(set.host_c0.size());
    upload(set.c0.data(), set.host_c0.data(), set.host_c0.size(), stream_);
  }
  std::vector<float> const c0 = beta != 0.0f ? initial_c(set) : std::vector<float>{};

  // Pedantic FP32 compute is the reference; if cuBLAS has no pedantic path for these input
  // types, plain FP32 compute (still FP32 accumulation, no TF32 for FP32 inputs) stands in.
  auto gemm = [&](void const* a, void const* b, void* c, float al, float be) {
    CublasContract contract = reference_contract(problem_.precision);
    cublasStatus_t s = gemm_row_major(handle, problem_, contract, a, b, c, al, be);
    if (s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_INVALID_VALUE) {
      contract.compute = CUBLAS_COMPUTE_32F;
      s = gemm_row_major(handle, problem_, contract, a, b, c, al, be);
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
      throw Error("cuBLAS reference GEMM for " + problem_.describe() + " failed: " +
                  cublas_status_text(s));
    }
  };

  // FP8: the reference multiplies FP32 copies of the quantized inputs, with per-tensor scales
  // folded into alpha, row-wise ones into the copies' rows of A and columns of B, and block
  // scales into each element of the copies by its row (column) and K block (exact: they are
  // powers of two).
  bool const widen = is_fp8(problem_.precision);
  bool const rows = row_scaled(problem_.precision), blocks = block_scaled(problem_.precision);
  float const ref_alpha = widen && !rows && !blocks ? alpha * kScaleA * kScaleB : alpha;
  Problem wide = problem_;
  if (widen) wide.precision = Precision::kFP32;
  Problem const& pr = problem_;
  auto upload_operand = [&](std::vector<std::byte> const& host, bool is_a) {
    if (!widen) {
      DeviceBuffer d(host.size());
      upload(d.data(), host.data(), host.size(), stream_);
      return d;
    }
    std::vector<float> values =
        from_storage(host, is_a ? problem_.precision : b_storage_precision(problem_.precision));
    if (blocks) {
      // Stored A is M×K (K×M when transposed), stored B N×K (K×N when not transposed).
      bool const t = is_a ? a_transposed(pr.layout) : !b_transposed(pr.layout);
      std::int64_t const outer = is_a ? pr.m : pr.n;
      for (std::size_t e = 0; e < values.size(); ++e) {
        auto const x = static_cast<std::int64_t>(e);
        std::int64_t const row = t ? x % outer : x / pr.k, k = t ? x / outer : x % pr.k;
        values[e] *= is_a ? block_scale_a(row, k / kScaleBlock)
                          : block_scale_b(row / kScaleBlock, k / kScaleBlock);
      }
    }
    if (rows) {
      // Stored A is M×K (K×M when transposed), stored B N×K (K×N when not transposed).
      for (std::size_t e = 0; e < values.size(); ++e) {
        auto const x = static_cast<std::int64_t>(e);
        values[e] *= is_a ? row_scale_a(a_transposed(pr.layout) ? x % pr.m : x / pr.k)
                          : row_scale_b(b_transposed(pr.layout) ? x / pr.k : x % pr.n);
      }
    }
    DeviceBuffer d(values.size() * sizeof(float));
    upload(d.data(), values.data(), d.bytes(), stream_);
    return d;
  };
  DeviceBuffer wide_a, wide_b;
  if (widen) {
    wide_a = upload_operand(set.host_a, true);
    wide_b = upload_operand(set.host_b, false);
  }
  auto run_reference = [&](void const* a, void const* b, void* c, float al, float be) {
    CublasContract const contract = reference_contract(problem_.precision);
    cublasStatus_t const s = gemm_row_major(handle, wide, contract, a, b, c, al, be);
    if (s != CUBLAS_STATUS_SUCCESS) {
      throw Error("cuBLAS reference GEMM for " + problem_.describe() + " failed: " +
                  cublas_status_text(s));
    }
  };

  DeviceBuffer out(mn * sizeof(float));
  if (beta != 0.0f) upload(out.data(), c0.data(), mn * sizeof(float), stream_);
  if (widen) {
    run_reference(wide_a.data(), wide_b.data(), out.data(), ref_alpha, beta);
  } else {
    gemm(set.a.data(), set.b.data(), out.data(), alpha, beta);
  }
  set.reference.resize(mn);
  download(set.reference.data(), out.data(), mn * sizeof(float), stream_);

  set.bound_s.clear();
  set.max_s = 0.0;
  if (with_bound) {
    std::vector<std::byte> const abs_a = abs_storage(set.host_a, problem_.precision);
    std::vector<std::byte> const abs_b = abs_storage(set.host_b, problem_.precision);
    DeviceBuffer da = upload_operand(abs_a, true), db = upload_operand(abs_b, false);
    if (beta != 0.0f) {
      std::vector<float> abs_c0(c0.size());
      std::transform(c0.begin(), c0.end(), abs_c0.begin(), [](float v) { return std::fabs(v); });
      upload(out.data(), abs_c0.data(), mn * sizeof(float), stream_);
    }
    if (widen) {
      run_reference(da.data(), db.data(), out.data(), std::fabs(ref_alpha), std::fabs(beta));
    } else {
      gemm(da.data(), db.data(), out.data(), std::fabs(alpha), std::fabs(beta));
    }
    set.bound_s.resize(mn);
    download(set.bound_s.data(), out.data(), mn * sizeof(float), stream_);
    for (float v : set.bound_s) set.max_s = std::max(set.max_s, static_cast<double>(v));
  }
  set.has_reference = true;
  set.ref_alpha = alpha;
  set.ref_beta = beta;
}

RotationPool const& ProblemData::pool(std::int64_t rotate_bytes) {
  if (!pool_ || pool_->rotate_bytes() != rotate_bytes) {
    pool_.reset();  // free the old sets before allocating new ones
    pool_ = std::make_unique<RotationPool>(problem_, rotate_bytes, normal_.a.data(),
                                           normal_.b.data(), stream_);
  }
  return *pool_;
}

PinnedBuffer& ProblemData::staging() {
  if (staging_.data() == nullptr) staging_ = PinnedBuffer(std::max({a_bytes(), b_bytes(), c_bytes()}));
  return staging_;
}

std::span<float> ProblemData::c_values() {
  c_values_.resize(static_cast<std::size_t>(problem_.m * problem_.n));
  return c_values_;
}

}  // namespace gemmtune
