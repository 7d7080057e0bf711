// GpuSession on a real device: probe, cuBLAS baselines for every precision and layout, and
// candidates compiled here with NVRTC — a correct naive kernel (ok on ragged shapes and all
// layouts), wrong ones (wrong result, unwritten element, guard band), launch-time refusals
// (launch error, session lives on), an illegal address (fault, session poisoned) and a
// printed per-step breakdown of one evaluation at 2048³. Every test skips when no device is
// present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <nvrtc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "src/core/vendor_kernel.hpp"
#include "src/gpu/cublaslt_autotune.hpp"
#include "src/gpu/device_probe.hpp"
#include "src/gpu/device_sensors.hpp"
#include "src/gpu/gpu_session.hpp"
#include "src/gpu/timing_protocol.hpp"
#include "src/launch/cuda_errors.hpp"
#include "tests/support/test_paths.hpp"

namespace gemmtune {
namespace {

// MODE: 0 correct, 1 skips the last k, 2 also writes row M (one past the end of C), 3 writes
// 4 TiB past C (illegal address), 4 leaves C(0,0) unwritten, 5 also changes A(0,0), 6 skips
// the last k and changes A(0,0).
constexpr char const* kNaiveSource = R"(
#include "common/gemm_args.cuh"
template <bool TA, bool TB, int MODE>
__global__ void naive(GemmArgs g) {
  long long const i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
  long long const j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  float const* A = static_cast<float const*>(g.A);
  float const* B = static_cast<float const*>(g.B);
  float* C = static_cast<float*>(g.C);
  if (MODE == 3) {
    if (i == 0 && j == 0) *(volatile float*)(C + (1LL << 40)) = 1.0f;
    return;
  }
  long long const rows = MODE == 2 ? g.M + 1 : g.M;
  if (i >= rows || j >= g.N) return;
  if (i == g.M) { C[i * g.ldc + j] = 0.0f; return; }
  if (MODE == 4 && i == 0 && j == 0) return;
  long long const k_end = MODE == 1 || MODE == 6 ? g.K - 1 : g.K;
  float acc = 0.0f;
  for (long long k = 0; k < k_end; ++k) {
    float const a = TA ? A[k * g.lda + i] : A[i * g.lda + k];
    float const b = TB ? B[j * g.ldb + k] : B[k * g.ldb + j];
    acc = fmaf(a, b, acc);
  }
  float const out = g.alpha * acc;
  C[i * g.ldc + j] = g.beta == 0.0f ? out : out + g.beta * C[i * g.ldc + j];
  if ((MODE == 5 || MODE == 6) && i == 0 && j == 0) const_cast<float*>(A)[0] += 1.0f;
}
)";

// 16-bit inputs and output, FP32 accumulation.
constexpr char const* kNaive16Source = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "common/gemm_args.cuh"
__device__ float to_float(__half v) { return __half2float(v); }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
template <typename T, bool TA, bool TB>
__global__ void naive16(GemmArgs g) {
  long long const i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
  long long const j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= g.M || j >= g.N) return;
  T const* A = static_cast<T const*>(g.A);
  T const* B = static_cast<T const*>(g.B);
  float acc = 0.0f;
  for (long long k = 0; k < g.K; ++k) {
    float const a = to_float(TA ? A[k * g.lda + i] : A[i * g.lda + k]);
    float const b = to_float(TB ? B[j * g.ldb + k] : B[k * g.ldb + j]);
    acc = fmaf(a, b, acc);
  }
  T* C = static_cast<T*>(g.C);
  float const out = g.alpha * acc;
  store(C + i * g.ldc + j, g.beta == 0.0f ? out : out + g.beta * to_float(C[i * g.ldc + j]));
}
)";

struct Compiled {
  std::string cubin_path;
  std::vector<std::string> lowered;  // parallel to the name expressions
};

/// Compiles `source` for `arch` with NVRTC and writes the cubin to a temp file.
Compiled compile(std::string const& source, std::vector<std::string> const& names,
                 std::string const& arch) {
  nvrtcProgram prog = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&prog, source.c_str(), "test_kernels.cu", 0, nullptr, nullptr),
            NVRTC_SUCCESS);
  for (auto const& n : names) EXPECT_EQ(nvrtcAddNameExpression(prog, n.c_str()), NVRTC_SUCCESS);
  std::string const arch_opt = "--gpu-architecture=" + arch;
  std::string const inc1 = "-I" + gemmtune::test::source_path("kernel_templates").string();
  std::string const inc2 = std::string("-I") + GEMMTUNE_TEST_CUDA_INCLUDE;
  char const* opts[] = {arch_opt.c_str(), inc1.c_str(), inc2.c_str(), "--std=c++17"};
  nvrtcResult const rc = nvrtcCompileProgram(prog, 4, opts);
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(prog, log.data());
  EXPECT_EQ(rc, NVRTC_SUCCESS) << log;
  Compiled out;
  for (auto const& n : names) {
    char const* lowered = nullptr;
    EXPECT_EQ(nvrtcGetLoweredName(prog, n.c_str(), &lowered), NVRTC_SUCCESS);
    out.lowered.emplace_back(lowered ? lowered : "");
  }
  std::size_t size = 0;
  EXPECT_EQ(nvrtcGetCUBINSize(prog, &size), NVRTC_SUCCESS);
  std::string cubin(size, '\0');
  EXPECT_EQ(nvrtcGetCUBIN(prog, cubin.data()), NVRTC_SUCCESS);
  nvrtcDestroyProgram(&prog);
  static std::atomic<int> counter{0};
  out.cubin_path = ::testing::TempDir() + "gemmtune_gpu_test_" + std::to_string(::getpid()) +
                   "_" + std::to_string(counter++) + ".cubin";
  std::ofstream(out.cubin_path, std::ios::binary).write(cubin.data(), cubin.size());
  return out;
}

std::string bool_text(bool b) { return b ? "true" : "false"; }

std::string naive_name(Layout l, int mode) {
  return "naive<" + bool_text(a_transposed(l)) + "," + bool_text(b_transposed(l)) + "," +
         std::to_string(mode) + ">";
}

constexpr int kModes = 7;

/// All naive kernels (4 layouts × kModes), compiled once per process.
struct NaiveKernels {
  Compiled compiled;
  std::string lowered(Layout l, int mode) const {
    return compiled.lowered[static_cast<std::size_t>(static_cast<int>(l) * kModes + mode)];
  }
};

TimingSpec quick_timing() {
  TimingSpec t;
  t.warmup_ms = 1.0;
  t.target_ms = 2.0;
  t.repeats = 3;
  t.rotate_bytes = 4 << 20;
  return t;
}

Problem problem(std::int64_t m, std::int64_t n, std::int64_t k, Precision p, Layout l) {
  Problem pr;
  pr.m = m;
  pr.n = n;
  pr.k = k;
  pr.precision = p;
  pr.layout = l;
  return pr.resolved();
}

/// A 16×16-thread launch covering `rows` × N.
KernelLaunch tile_launch(std::string const& lowered, Problem const& p, std::int64_t rows) {
  KernelLaunch l;
  l.lowered_name = lowered;
  l.block = {16, 16, 1};
  l.grid = {(p.n + 15) / 16, (rows + 15) / 16, 1};
  return l;
}

class GpuSessionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    report_ = probe_device();
    if (!report_.present) return;
    session_ = std::make_unique<GpuSession>();
    std::vector<std::string> names;
    for (Layout l : kAllLayouts) {
      for (int mode = 0; mode < kModes; ++mode) names.push_back(naive_name(l, mode));
    }
    naive_.compiled = compile(kNaiveSource, names, report_.limits.arch);
  }
  static void TearDownTestSuite() { session_.reset(); }
  void SetUp() override {
    if (!report_.present) GTEST_SKIP() << "no CUDA device: " << report_.reason;
    ASSERT_FALSE(session_->poisoned()) << "an earlier test left the session poisoned";
  }

  EvalJob naive_job(Problem const& p, int mode) const {
    EvalJob job;
    job.problem = p;
    job.kernel_id = "test:naive";
    job.cubin_path = naive_.compiled.cubin_path;
    job.plan.launches.push_back(
        tile_launch(naive_.lowered(p.layout, mode), p, mode == 2 ? p.m + 1 : p.m));
    job.timing = quick_timing();
    job.seed = 3;
    return job;
  }

  static DeviceReport report_;
  static std::unique_ptr<GpuSession> session_;
  static NaiveKernels naive_;
};
DeviceReport GpuSessionTest::report_;
std::unique_ptr<GpuSession> GpuSessionTest::session_;
NaiveKernels GpuSessionTest::naive_;

TEST_F(GpuSessionTest, ProbeSeesTheDevice) {
  DeviceReport const& d = session_->device();
  EXPECT_TRUE(d.present);
  EXPECT_FALSE(d.gpu.name.empty());
  EXPECT_GE(d.gpu.cc_major, 7);
  EXPECT_GT(d.gpu.sm_count, 0);
  EXPECT_EQ(d.limits.sm_count, d.gpu.sm_count);
  EXPECT_EQ(d.limits.arch, d.gpu.arch());
  EXPECT_GE(d.limits.max_smem_per_block_optin, 48 * 1024);
  EXPECT_GT(d.limits.l2_bytes, 0);
  EXPECT_GT(d.memory_bytes, 0);
  EXPECT_GT(d.clock_mhz, 0);
  EXPECT_NE(d.driver, "none");
  EXPECT_NE(d.cublas.find('.'), std::string::npos);
  DeviceReport const back = nlohmann::json(d).get<DeviceReport>();
  EXPECT_EQ(back.gpu, d.gpu);
  EXPECT_EQ(back.limits, d.limits);
}

TEST_F(GpuSessionTest, CublasBaselineEveryPrecisionAndLayout) {
  for (Precision prec : kAllPrecisions) {
    for (Layout l : kAllLayouts) {
      // cuBLASLt reads FP8 only as our NT, with 16-byte rows. Its heuristic (13.1, on an H100)
      // offers no block-scaled algorithm at 67x48x32, and does at 200x136x272 (a partial last
      // K block and N block).
      if (is_fp8(prec) && l != Layout::kNT) continue;
      BaselineJob job;
      job.problem = block_scaled(prec) ? problem(200, 136, 272, prec, l)
                    : is_fp8(prec)     ? problem(67, 48, 32, prec, l)
                                       : problem(67, 45, 33, prec, l);
      job.timing = quick_timing();
      BaselineResult const r = session_->baseline(job);
      SCOPED_TRACE(job.problem.describe());
      EXPECT_TRUE(r.ok) << r.reason;
      if (!r.ok) continue;  // no algorithm to name below
      EXPECT_GT(r.cublas_ms, 0.0);
      EXPECT_GT(r.cublaslt_ms, 0.0) << r.reason;
      EXPECT_GE(r.cublaslt_algo_index, 0);
      EXPECT_GE(r.cublaslt_algos_tried, 1);
      EXPECT_LE(r.cublaslt_algos_tried, kLtMaxCandidates);
      EXPECT_EQ(vendor_reject_reason(parse_kernel_id(r.cublaslt_kernel)), "") << r.cublaslt_kernel;
    }
  }
}


// A verified baseline names a cuBLASLt algorithm that passes the tolerance pass where one exists:
// on a bf16 problem with a long K and unaligned rows, cuBLASLt's fastest algorithms sum split-K
// partials in place in bf16 and fail it; the baseline passes over them, keeps each with its
// error, and names the next that passes.
TEST_F(GpuSessionTest, VerifiedBaselineNamesAPassingCublasLtAlgorithm) {
  BaselineJob job;
  job.problem = problem(1537, 4097, 14336, Precision::kBF16, Layout::kNN);
  job.timing = quick_timing();
  job.verify = true;
  BaselineResult const r = session_->baseline(job);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.cublaslt_verdict, Disposition::kOk) << r.verdict_reason;
  EXPECT_LT(r.cublaslt_err_ratio, 1.0);
  EXPECT_GT(r.cublaslt_ms, 0.0);
  for (VendorRejection const& x : r.cublaslt_rejected) {
    SCOPED_TRACE(x.kernel);
    EXPECT_NE(x.kernel, r.cublaslt_kernel);
    EXPECT_GT(x.err_ratio, 1.0);
    EXPECT_FALSE(x.reason.empty());
    EXPECT_EQ(vendor_reject_reason(parse_kernel_id(x.kernel)), "");
  }
  for (std::string const& id : r.cublaslt_runners_up) EXPECT_NE(id, r.cublaslt_kernel);
}

// The vendor as a candidate: a verified baseline names the algorithm it chose by its canonical
// id; that id times again as the rounds of a re-time do, and evaluates as a candidate (verify,
// time, re-verify) like our kernels; an algorithm this cuBLAS refuses is a launch error.
TEST_F(GpuSessionTest, VendorCandidatesVerifyAndRunByTheirIds) {
  for (Precision prec : {Precision::kFP32, Precision::kFP16, Precision::kBF16, Precision::kE4M3,
                         Precision::kE4M3Row, Precision::kE4M3Blk, Precision::kE5M2,
                         Precision::kE5M2Row, Precision::kE5M2Blk}) {
    for (Layout l : {Layout::kNN, Layout::kTN, Layout::kNT}) {
      // FP8 takes NT only; the others are checked on NN and TN.
      if (is_fp8(prec) != (l == Layout::kNT)) continue;
      BaselineJob job;
      job.problem = problem(256, 192, 128, prec, l);
      job.timing = quick_timing();
      job.verify = true;
      SCOPED_TRACE(job.problem.describe());
      BaselineResult const r = session_->baseline(job);
      ASSERT_TRUE(r.ok) << r.reason;
      EXPECT_EQ(r.cublas_verdict, Disposition::kOk) << r.verdict_reason;
      EXPECT_EQ(r.cublaslt_verdict, Disposition::kOk) << r.verdict_reason;
      EXPECT_LT(r.cublaslt_err_ratio, 1.0);
      ASSERT_FALSE(r.cublaslt_kernel.empty());

      BaselineJob again = job;
      again.verify = false;
      again.cublaslt_kernel = r.cublaslt_kernel;
      BaselineResult const r2 = session_->baseline(again);
      ASSERT_TRUE(r2.ok) << r2.reason;
      EXPECT_EQ(r2.cublaslt_kernel, r.cublaslt_kernel);
      EXPECT_GT(r2.cublaslt_ms, 0.0) << r2.reason;
      EXPECT_EQ(r2.cublaslt_verdict, Disposition::kSkipped);

      for (std::string const& id : {r.cublaslt_kernel, std::string("cublas:default")}) {
        EvalJob e;
        e.problem = job.problem;
        e.kernel_id = id;
        e.timing = quick_timing();
        e.seed = 5;
        EvalResult const er = session_->evaluate(e);
        EXPECT_EQ(er.disposition, Disposition::kOk) << id << ": " << er.reason;
        EXPECT_GT(er.median_ms, 0.0);
      }
    }
  }
  EvalJob refused;
  refused.problem = problem(256, 192, 128, Precision::kFP16, Layout::kNN);
  refused.kernel_id =
      "cublaslt:ALGO=4095,TILE=0,STAGES=0,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,INNER=0,CLUSTER=0,"
      "COMPUTE=0";
  refused.timing = quick_timing();
  EvalResult const er = session_->evaluate(refused);
  EXPECT_EQ(er.disposition, Disposition::kLaunchError) << er.reason;
  EXPECT_NE(er.reason.find("cuBLASLt"), std::string::npos) << er.reason;
  EXPECT_FALSE(session_->poisoned());
}

// One kernel and cuBLAS timed both ways. A small problem runs for less than the host's cost of a
// launch, so the stream loop times that cost while graph replay does not: the graph figure is
// never meaningfully slower than the stream one, each figure lies within its repeats, and the
// host cost per call is measured apart under either protocol.
TEST_F(GpuSessionTest, GraphAndStreamProtocolsTimeTheSameKernel) {
  Problem const p = problem(128, 128, 64, Precision::kFP32, Layout::kNN);
  for (TimingProtocol protocol : {TimingProtocol::kGraph, TimingProtocol::kStream}) {
    SCOPED_TRACE(std::string(to_string(protocol)));
    EvalJob job = naive_job(p, 0);
    job.timing.protocol = protocol;
    EvalResult const r = session_->evaluate(job);
    ASSERT_EQ(r.disposition, Disposition::kOk) << r.reason;
    EXPECT_EQ(r.protocol, protocol);
    EXPECT_GT(r.min_ms, 0.0);
    EXPECT_LE(r.min_ms, r.median_ms);
    EXPECT_LE(r.median_ms, r.max_ms);
    EXPECT_GT(r.host_us_per_call, 0.0);
    BaselineJob base;
    base.problem = p;
    base.timing = job.timing;
    BaselineResult const b = session_->baseline(base);
    ASSERT_TRUE(b.ok) << b.reason;
    EXPECT_EQ(b.protocol, protocol);
    EXPECT_LE(b.cublas_min_ms, b.cublas_ms);
    EXPECT_LE(b.cublas_ms, b.cublas_max_ms);
    EXPECT_GT(b.cublas_host_us, 0.0);
  }
  EvalJob graph = naive_job(p, 0), stream = naive_job(p, 0);
  graph.timing.protocol = TimingProtocol::kGraph;
  stream.timing.protocol = TimingProtocol::kStream;
  double const g = session_->evaluate(graph).median_ms;
  double const s = session_->evaluate(stream).median_ms;
  EXPECT_LE(g, s * 1.10) << "graph " << g << " ms, stream " << s << " ms";
}

// The final re-time in one request: a candidate, one that modifies its input (dropped at its
// first run, its input restored) and both baselines, interleaved in rounds under either
// protocol; every entry timed in every round, each figure the median of its rounds.
TEST_F(GpuSessionTest, RetimeTimesCandidatesAndBaselinesTogetherInRounds) {
  Problem const p = problem(256, 192, 128, Precision::kFP32, Layout::kNN);
  BaselineJob first;
  first.problem = p;
  first.seed = 3;
  first.timing = quick_timing();
  BaselineResult const chosen = session_->baseline(first);
  ASSERT_TRUE(chosen.ok) << chosen.reason;
  ASSERT_FALSE(chosen.cublaslt_kernel.empty()) << chosen.reason;
  for (TimingProtocol protocol : {TimingProtocol::kGraph, TimingProtocol::kStream}) {
    SCOPED_TRACE(std::string(to_string(protocol)));
    RetimeJob job;
    job.candidates = {naive_job(p, 0), naive_job(p, 5), naive_job(p, 0)};
    job.candidates[2].kernel_id = "test:naive-again";
    for (EvalJob& c : job.candidates) c.timing.protocol = protocol;
    job.baselines = first;
    job.baselines.timing.protocol = protocol;
    job.baselines.cublaslt_kernel = chosen.cublaslt_kernel;
    job.rounds = 3;
    job.settle_ms = 20.0;
    RetimeResult const r = session_->retime(job);
    ASSERT_EQ(r.candidates.size(), 3u);
    ASSERT_TRUE(r.baselines.ok) << r.baselines.reason;
    EXPECT_EQ(r.baselines.protocol, protocol);
    EXPECT_EQ(r.cublas_rounds_ms.size(), 3u);
    EXPECT_EQ(r.cublaslt_rounds_ms.size(), 3u);
    EXPECT_EQ(r.baselines.cublaslt_kernel, chosen.cublaslt_kernel);
    EXPECT_GT(r.baselines.cublas_host_us, 0.0);
    EXPECT_EQ(r.candidates[1].disposition, Disposition::kWrongResult);
    EXPECT_NE(r.candidates[1].reason.find("input A was modified"), std::string::npos)
        << r.candidates[1].reason;
    EXPECT_TRUE(r.candidate_rounds_ms[1].empty());
    for (std::size_t i : {0u, 2u}) {
      EvalResult const& c = r.candidates[i];
      ASSERT_EQ(c.disposition, Disposition::kOk) << c.reason;
      ASSERT_EQ(r.candidate_rounds_ms[i].size(), 3u);
      EXPECT_EQ(c.protocol, protocol);
      EXPECT_EQ(c.repeats, 3 * job.baselines.timing.repeats);
      EXPECT_LE(c.min_ms, c.median_ms);
      EXPECT_LE(c.median_ms, c.max_ms);
      EXPECT_GT(c.host_us_per_call, 0.0);
      for (double ms : r.candidate_rounds_ms[i]) {
        EXPECT_LE(c.min_ms, ms);
        EXPECT_LE(ms, c.max_ms);
      }
    }
    // The same kernel twice in the rounds: the two figures agree closely.
    EXPECT_NEAR(r.candidates[0].median_ms, r.candidates[2].median_ms,
                0.1 * r.candidates[0].median_ms);
  }
  // The session is intact: the restored input lets a correct kernel pass.
  EvalResult const ok = session_->evaluate(naive_job(p, 0));
  EXPECT_EQ(ok.disposition, Disposition::kOk) << ok.reason;
}

// Where the driver's management library is there, every timed run carries the board's
// sensors: a clock and a power and, over repeats the energy counter advanced in, energy.
TEST_F(GpuSessionTest, TimedRunsCarryTheSensorsWhereTheLibraryIsThere) {
  char bus_id[32] = {};
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0), cudaSuccess);
  DeviceSensors const probe(bus_id);
  if (!probe.available()) GTEST_SKIP() << probe.why_not();
  std::optional<SensorReading> const now = probe.read();
  ASSERT_TRUE(now.has_value());
  EXPECT_GT(now->sm_clock_mhz, 0);

  BaselineJob job;
  job.problem = problem(2048, 2048, 2048, Precision::kBF16, Layout::kNN);
  job.timing = quick_timing();
  job.timing.target_ms = 200.0;
  job.timing.repeats = 2;
  BaselineResult const r = session_->baseline(job);
  ASSERT_TRUE(r.ok) << r.reason;
  ASSERT_TRUE(r.cublas_power.present());
  EXPECT_GT(r.cublas_power.sm_clock_mhz, 0);
  EXPECT_GT(r.cublas_power.power_w, 0.0);
  // The board's counter advances every so often, not with every launch: a run it advanced over
  // has an energy figure, and a 2048³ GEMM (17 GFLOP) costs far more than a microjoule and far
  // less than a joule on any board.
  if (r.cublas_power.energy_mj != 0.0) {
    EXPECT_GT(r.cublas_power.energy_mj, 1e-3);
    EXPECT_LT(r.cublas_power.energy_mj, 1000.0);
  }
  EXPECT_TRUE(r.cublaslt_power.present());
  EXPECT_GT(r.cublaslt_power.power_w, 0.0);
}

TEST_F(GpuSessionTest, NaiveKernelVerifiesOnRaggedShapesAndAllLayouts) {
  struct Shape { std::int64_t m, n, k; };
  for (Shape s : {Shape{37, 53, 71}, Shape{1, 129, 17}, Shape{130, 1, 300}, Shape{33, 96, 1}}) {
    for (Layout l : kAllLayouts) {
      Problem const p = problem(s.m, s.n, s.k, Precision::kFP32, l);
      SCOPED_TRACE(p.describe());
      EvalResult const r = session_->evaluate(naive_job(p, 0));
      EXPECT_EQ(r.disposition, Disposition::kOk) << r.reason;
      EXPECT_TRUE(r.reason.empty()) << r.reason;
      EXPECT_LE(r.max_err_ratio, 1.0);
      EXPECT_EQ(r.exact_mismatches, 0);
      EXPECT_GT(r.median_ms, 0.0);
      EXPECT_GT(r.min_ms, 0.0);
      EXPECT_LE(r.min_ms, r.median_ms);
      EXPECT_GE(r.iterations, 1);
      EXPECT_EQ(r.repeats, 3);
      EXPECT_GT(r.registers, 0);
    }
  }
}

TEST_F(GpuSessionTest, AlphaBetaAndDefaultRotation) {
  Problem const p = problem(70, 50, 40, Precision::kFP32, Layout::kNT);
  EvalJob job = naive_job(p, 0);
  job.alpha = 0.5f;
  job.beta = 2.0f;
  job.timing.rotate_bytes = 0;  // 2× the device's L2
  EvalResult const r = session_->evaluate(job);
  EXPECT_EQ(r.disposition, Disposition::kOk) << r.reason;
  EXPECT_LE(r.max_err_ratio, 1.0);
}

TEST_F(GpuSessionTest, SixteenBitCandidatesVerify) {
  std::vector<std::string> names;
  for (char const* type : {"__half", "__nv_bfloat16"}) {
    for (Layout l : kAllLayouts) {
      names.push_back(std::string("naive16<") + type + "," + bool_text(a_transposed(l)) + "," +
                      bool_text(b_transposed(l)) + ">");
    }
  }
  Compiled const c = compile(kNaive16Source, names, report_.limits.arch);
  int idx = 0;
  for (Precision prec : {Precision::kFP16, Precision::kBF16}) {
    for (Layout l : kAllLayouts) {
      Problem const p = problem(45, 38, 150, prec, l);
      SCOPED_TRACE(p.describe());
      EvalJob job;
      job.problem = p;
      job.cubin_path = c.cubin_path;
      job.plan.launches.push_back(tile_launch(c.lowered[static_cast<std::size_t>(idx++)], p, p.m));
      job.timing = quick_timing();
      EvalResult const r = session_->evaluate(job);
      EXPECT_EQ(r.disposition, Disposition::kOk) << r.reason;
      EXPECT_LE(r.max_err_ratio, 1.0);
      EXPECT_GT(r.max_abs_err, 0.0);  // 16-bit output rounding is visible
    }
  }
}

TEST_F(GpuSessionTest, SkippedKTermIsWrongResult) {
  for (Layout l : {Layout::kNN, Layout::kTT}) {
    EvalResult const r = session_->evaluate(naive_job(problem(37, 53, 71, Precision::kFP32, l), 1));
    EXPECT_EQ(r.disposition, Disposition::kWrongResult) << r.reason;
    EXPECT_NE(r.reason.find("bad element"), std::string::npos) << r.reason;
    EXPECT_GT(r.max_err_ratio, 1.0);
  }
}

TEST_F(GpuSessionTest, SingleSkippedTermIsWrongResult) {
  // K = 1: skipping the only term writes zeros everywhere, so the NaN poison is gone and
  // only the comparison with the reference can tell.
  EvalResult const r = session_->evaluate(naive_job(problem(20, 30, 1, Precision::kFP32, Layout::kNN), 1));
  EXPECT_EQ(r.disposition, Disposition::kWrongResult) << r.reason;
}

TEST_F(GpuSessionTest, UnwrittenElementIsCaught) {
  EvalResult const r = session_->evaluate(naive_job(problem(37, 53, 71, Precision::kFP32, Layout::kNN), 4));
  EXPECT_EQ(r.disposition, Disposition::kWrongResult);
  EXPECT_NE(r.reason.find("unwritten output (NaN) at (i,j)=(0,0)"), std::string::npos) << r.reason;
}

TEST_F(GpuSessionTest, WriteIntoGuardBandIsCaught) {
  EvalResult const r = session_->evaluate(naive_job(problem(37, 53, 71, Precision::kFP32, Layout::kNT), 2));
  EXPECT_EQ(r.disposition, Disposition::kWrongResult);
  EXPECT_NE(r.reason.find("guard band after C"), std::string::npos) << r.reason;
}

TEST_F(GpuSessionTest, ModifiedInputIsCaughtAndRestored) {
  Problem const p = problem(37, 53, 71, Precision::kFP32, Layout::kNN);
  EvalResult const r = session_->evaluate(naive_job(p, 5));
  EXPECT_EQ(r.disposition, Disposition::kWrongResult);
  EXPECT_NE(r.reason.find("input A was modified"), std::string::npos) << r.reason;
  // The session restored A: a correct kernel on the same problem passes.
  EvalResult const ok = session_->evaluate(naive_job(p, 0));
  EXPECT_EQ(ok.disposition, Disposition::kOk) << ok.reason;
}

TEST_F(GpuSessionTest, InputModifiedByAFailingCandidateIsNamedAndRestored) {
  // Wrong in the first run, before the final inputs check: the inputs are still checked,
  // named in the reason, and restored for the next candidate.
  Problem const p = problem(41, 35, 60, Precision::kFP32, Layout::kTN);
  EvalResult const r = session_->evaluate(naive_job(p, 6));
  EXPECT_EQ(r.disposition, Disposition::kWrongResult);
  EXPECT_EQ(r.reason.rfind("input A was modified by the kernel; first run: ", 0), 0u) << r.reason;
  EvalResult const ok = session_->evaluate(naive_job(p, 0));
  EXPECT_EQ(ok.disposition, Disposition::kOk) << ok.reason;
}

TEST_F(GpuSessionTest, TooManyThreadsIsLaunchErrorAndSessionLivesOn) {
  Problem const p = problem(37, 53, 71, Precision::kFP32, Layout::kNN);
  EvalJob job = naive_job(p, 0);
  job.plan.launches[0].block = {64, 32, 1};  // 2048 threads
  EvalResult const r = session_->evaluate(job);
  EXPECT_EQ(r.disposition, Disposition::kLaunchError) << r.reason;
  EXPECT_NE(r.cuda_error, 0);
  EXPECT_FALSE(is_sticky(r.cuda_error));
  EXPECT_FALSE(session_->poisoned());

  EvalJob smem = naive_job(p, 0);
  smem.plan.launches[0].dynamic_smem = 4 << 20;  // beyond any device's opt-in limit
  EvalResult const s = session_->evaluate(smem);
  EXPECT_EQ(s.disposition, Disposition::kLaunchError) << s.reason;

  EvalJob missing = naive_job(p, 0);
  missing.plan.launches[0].lowered_name = "no_such_kernel";
  EvalResult const m = session_->evaluate(missing);
  EXPECT_EQ(m.disposition, Disposition::kLaunchError) << m.reason;
  EXPECT_NE(m.reason.find("no_such_kernel"), std::string::npos) << m.reason;

  EvalResult const ok = session_->evaluate(naive_job(p, 0));
  EXPECT_EQ(ok.disposition, Disposition::kOk) << ok.reason;
}

TEST_F(GpuSessionTest, EarlyStopSlowCandidate) {
  EvalJob job = naive_job(problem(64, 64, 64, Precision::kFP32, Layout::kNN), 0);
  job.timing.early_stop_ms = 1e-6;
  EvalResult const r = session_->evaluate(job);
  EXPECT_EQ(r.disposition, Disposition::kOk);
  EXPECT_EQ(r.repeats, 1);
  EXPECT_EQ(r.reason.rfind("early stop: slower than", 0), 0u) << r.reason;
}

TEST_F(GpuSessionTest, MissingCubinIsAnEnvironmentError) {
  EvalJob job = naive_job(problem(8, 8, 8, Precision::kFP32, Layout::kNN), 0);
  job.cubin_path = ::testing::TempDir() + "does_not_exist.cubin";
  EXPECT_THROW(session_->evaluate(job), Error);
}

// Where one candidate's worker time goes at a size where verification dominates a small
// search's wall time: printed for reading on the GPU machine, not asserted (timings vary).
TEST_F(GpuSessionTest, PhaseBreakdownAt2048) {
  Problem const p = problem(2048, 2048, 2048, Precision::kFP32, Layout::kNN);
  EvalJob job = naive_job(p, 0);
  job.timing = TimingSpec{};
  job.timing.warmup_ms = 10.0;  // the search's spec
  job.timing.target_ms = 10.0;
  job.timing.repeats = 5;
  for (char const* what : {"first candidate of the problem (builds its data)", "next candidate"}) {
    auto const start = std::chrono::steady_clock::now();
    EvalResult const r = session_->evaluate(job);
    double const wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.disposition, Disposition::kOk) << r.reason;
    EXPECT_FALSE(session_->last_phases().empty());
    double sum = 0.0;
    std::printf("evaluate %s at %s: %.1f ms wall, kernel %.3f ms x %d x %d\n", what,
                p.describe().c_str(), wall, r.median_ms, r.iterations, r.repeats);
    for (PhaseTime const& ph : session_->last_phases()) {
      std::printf("  %-34s %9.2f ms\n", ph.name.c_str(), ph.ms);
      sum += ph.ms;
    }
    std::printf("  %-34s %9.2f ms\n", "(sum of steps)", sum);
    EXPECT_LE(sum, wall + 1.0);
  }
  std::fflush(stdout);
}

// Last, in its own session: an illegal address kills the context for good.
TEST(GpuFaultTest, IllegalAddressIsFaultAndPoisonsTheSession) {
  DeviceReport const d = probe_device();
  if (!d.present) GTEST_SKIP() << "no CUDA device: " << d.reason;
  GpuSession session;
  Problem const p = problem(37, 53, 71, Precision::kFP32, Layout::kNN);
  Compiled const c = compile(kNaiveSource, {naive_name(p.layout, 3)}, d.limits.arch);
  EvalJob job;
  job.problem = p;
  job.cubin_path = c.cubin_path;
  job.plan.launches.push_back(tile_launch(c.lowered[0], p, p.m));
  job.timing = quick_timing();
  EvalResult const r = session.evaluate(job);
  EXPECT_EQ(r.disposition, Disposition::kFault) << r.reason;
  EXPECT_TRUE(is_sticky(r.cuda_error)) << r.cuda_error << " " << r.reason;
  EXPECT_TRUE(session.poisoned());
  EvalResult const again = session.evaluate(job);
  EXPECT_EQ(again.disposition, Disposition::kFault);
  EXPECT_NE(again.reason.find("worker must restart"), std::string::npos) << again.reason;
  BaselineJob b;
  b.problem = p;
  EXPECT_FALSE(session.baseline(b).ok);
}

}  // namespace
}  // namespace gemmtune
