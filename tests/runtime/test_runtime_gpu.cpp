// The runtime library on a GPU: the tuned fp32 kernels (exact and nearest rules, every layout,
// padded leading dimensions, alpha/beta), tuned 16-bit wgmma kernels whose epilogue stores C
// through TMA (ragged tiles, and register stores when beta ≠ 0), 16-bit wgmma kernels on data
// below 16-byte alignment (padded copies) and the cuBLAS fallback (tf32, fp16, bf16; no entry;
// data less aligned than the tuned config needs), and FP8 calls with their scales (the table's
// wgmma kernel, or cuBLASLt's heuristic) all match an FP64 host reference; a repeated
// call's host overhead is small. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <gemmtune/runtime.hpp>

#include "src/core/vendor_kernel.hpp"
#include "src/launch/cublaslt_matmul.hpp"

namespace gemmtune {
namespace {

constexpr char kBlocktile[] = "blocktile_2d:BM=128,BN=128,BK=8,TM=8,TN=8";
constexpr char kVectorized[] = "vectorized:BM=128,BN=128,BK=8,TM=8,TN=8";

bool gpu(cudaDeviceProp& prop) {
  int count = 0;
  bool const ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0 &&
                  cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
  (void)cudaGetLastError();
  return ok;
}

/// One exact entry of a tuning table for GPU 0, tuned on data of alignment class `align`
/// (16-byte-aligned unless given).
nlohmann::json table_entry(std::string_view precision, std::string_view layout, int m, int n,
                           int k, char const* kernel, int align = 16) {
  return {{"gpu", 0}, {"precision", precision}, {"layout", layout}, {"m", m}, {"n", n},
          {"k", k}, {"align", align}, {"kernel", kernel}, {"time_ms", 0.05},
          {"tflops", 2.0 * m * n * k / 0.05e-3 / 1e12}, {"cublas_ms", nullptr},
          {"cublaslt_ms", nullptr}, {"ratio_cublas", nullptr}, {"ratio_cublaslt", nullptr}};
}

/// Writes a tuning table for this GPU holding `entries` to a temporary file named `name`.
std::filesystem::path write_table_file(cudaDeviceProp const& prop, nlohmann::json entries,
                                       char const* name) {
  nlohmann::json const table{
      {"format", "gemmtune-table"},
      {"version", 1},
      {"generated_at", "2025-01-01T00:00:00Z"},
      {"gemmtune_version", "0.1.0"},
      {"gpus", {{{"id", 0},
                 {"name", prop.name},
                 {"cc", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
                 {"sm_count", prop.multiProcessorCount}}}},
      {"entries", std::move(entries)},
      {"defaults", nlohmann::json::array()}};
  auto const path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << table.dump(2);
  return path;
}

/// A table for this GPU: blocktile_2d at 256x192x128 in every fp32 layout, vectorized at
/// 512x512x256 NN.
std::filesystem::path write_table(cudaDeviceProp const& prop) {
  nlohmann::json entries = nlohmann::json::array();
  for (char const* l : {"NN", "NT", "TN", "TT"}) {
    entries.push_back(table_entry("fp32", l, 256, 192, 128, kBlocktile));
  }
  entries.push_back(table_entry("fp32", "NN", 512, 512, 256, kVectorized));
  return write_table_file(prop, std::move(entries), "gemmtune_rt_gpu_table.json");
}

std::uint16_t to_half_bits(float v) {  // exact for the small quarter-step values used here
  if (v == 0.0f) return 0;
  std::uint32_t f;
  std::memcpy(&f, &v, 4);
  std::uint32_t const sign = (f >> 16) & 0x8000u;
  int const exp = static_cast<int>((f >> 23) & 0xff) - 127 + 15;
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exp) << 10) | ((f >> 13) & 0x3ffu));
}

float from_half_bits(std::uint16_t h) {
  int const exp = (h >> 10) & 0x1f;
  float const mant = static_cast<float>(h & 0x3ff);
  float const mag = exp == 0 ? std::ldexp(mant, -24)
                             : exp == 31 ? INFINITY : std::ldexp(1024.0f + mant, exp - 25);
  return (h & 0x8000) ? -mag : mag;
}

std::uint16_t to_bf16_bits(float v) {
  std::uint32_t f;
  std::memcpy(&f, &v, 4);
  return static_cast<std::uint16_t>(f >> 16);  // exact for the values used here
}

float from_bf16_bits(std::uint16_t b) {
  std::uint32_t const f = static_cast<std::uint32_t>(b) << 16;
  float v;
  std::memcpy(&v, &f, 4);
  return v;
}

struct Case {
  Precision precision = Precision::kFP32;
  Layout layout = Layout::kNN;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t pad = 0;          // added to every leading dimension
  std::int64_t a_offset = 0;     // elements A starts after a 256-byte-aligned base
  float alpha = 1.0f, beta = 0.0f;
};

/// Runs one call through the runtime and checks C against an FP64 host reference.
GemmInfo run_case(Runtime& rt, Case const& c) {
  bool const ta = c.layout == Layout::kTN || c.layout == Layout::kTT;
  bool const tb = c.layout == Layout::kNT || c.layout == Layout::kTT;
  std::int64_t const lda = (ta ? c.m : c.k) + c.pad, ldb = (tb ? c.k : c.n) + c.pad, ldc = c.n + c.pad;
  std::int64_t const a_rows = ta ? c.k : c.m, b_rows = tb ? c.n : c.k;
  std::size_t const a_elems = static_cast<std::size_t>(a_rows * lda + c.a_offset);
  std::size_t const b_elems = static_cast<std::size_t>(b_rows * ldb), c_elems = static_cast<std::size_t>(c.m * ldc);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> q(-8, 8);  // quarter steps: exact in every precision
  std::vector<float> a(a_elems), b(b_elems), c0(c_elems);
  for (float& x : a) x = q(rng) * 0.25f;
  for (float& x : b) x = q(rng) * 0.25f;
  for (float& x : c0) x = q(rng) * 0.25f;

  int const eb = c.precision == Precision::kFP16 || c.precision == Precision::kBF16 ? 2 : 4;
  auto pack = [&](std::vector<float> const& v) {
    std::vector<unsigned char> out(v.size() * static_cast<std::size_t>(eb));
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (eb == 4) {
        std::memcpy(&out[i * 4], &v[i], 4);
      } else {
        std::uint16_t const h = c.precision == Precision::kFP16 ? to_half_bits(v[i]) : to_bf16_bits(v[i]);
        std::memcpy(&out[i * 2], &h, 2);
      }
    }
    return out;
  };
  auto const ha = pack(a), hb = pack(b), hc = pack(c0);
  void *da = nullptr, *db = nullptr, *dc = nullptr;
  EXPECT_EQ(cudaMalloc(&da, ha.size() + 256), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&db, hb.size()), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dc, hc.size()), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(da, ha.data(), ha.size(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(db, hb.data(), hb.size(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(dc, hc.data(), hc.size(), cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);

  void const* a_ptr = static_cast<unsigned char const*>(da) + c.a_offset * eb;
  GemmInfo info;
  GemmStatus const s = rt.gemm(c.precision, c.layout, c.m, c.n, c.k, c.alpha, a_ptr, lda, db, ldb,
                               c.beta, dc, ldc, stream, &info);
  EXPECT_EQ(s, GemmStatus::kOk) << info.detail;
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<unsigned char> out(hc.size());
  EXPECT_EQ(cudaMemcpy(out.data(), dc, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);

  double const unit = c.precision == Precision::kFP32 ? 0.0
                      : c.precision == Precision::kTF32 ? std::ldexp(1.0, -10)
                      : c.precision == Precision::kFP16 ? std::ldexp(1.0, -10)
                                                        : std::ldexp(1.0, -7);
  int bad = 0;
  for (std::int64_t i = 0; i < c.m && bad < 5; ++i) {
    for (std::int64_t j = 0; j < c.n && bad < 5; ++j) {
      double ref = 0.0;
      for (std::int64_t kk = 0; kk < c.k; ++kk) {
        double const av = ta ? a[static_cast<std::size_t>(c.a_offset + kk * lda + i)]
                             : a[static_cast<std::size_t>(c.a_offset + i * lda + kk)];
        double const bv = tb ? b[static_cast<std::size_t>(j * ldb + kk)] : b[static_cast<std::size_t>(kk * ldb + j)];
        ref += av * bv;
      }
      ref = c.alpha * ref + c.beta * c0[static_cast<std::size_t>(i * ldc + j)];
      std::size_t const idx = static_cast<std::size_t>(i * ldc + j);
      double got;
      if (eb == 4) {
        float f;
        std::memcpy(&f, &out[idx * 4], 4);
        got = f;
      } else {
        std::uint16_t h;
        std::memcpy(&h, &out[idx * 2], 2);
        got = c.precision == Precision::kFP16 ? from_half_bits(h) : from_bf16_bits(h);
      }
      // Quarter-step inputs make every product and partial sum exact in FP32; only the
      // output rounding (and tf32's input rounding, exact here) can differ.
      if (!(std::abs(got - ref) <= unit * std::abs(ref) + 1e-6)) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", expected " << ref << " ("
                      << to_string(c.precision) << " " << to_string(c.layout) << ", "
                      << info.detail << ")";
        ++bad;
      }
    }
  }
  cudaStreamDestroy(stream);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return info;
}


/// The algorithm cuBLASLt's heuristic ranks first for a packed call of `c`'s shape, as the
/// canonical cublaslt id a table stores.
std::string heuristic_algorithm(Case const& c) {
  Problem p;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.precision = c.precision;
  p.layout = c.layout;
  cublasLtHandle_t handle = nullptr;
  EXPECT_EQ(cublasLtCreate(&handle), CUBLAS_STATUS_SUCCESS);
  LtDescriptors d;
  RowMajorGemm const shape{p.layout, p.m, p.n, p.k, nullptr, p.lda(), nullptr, p.ldb(), nullptr,
                           p.ldc()};
  // fp32: plain 32F where cuBLASLt lists no pedantic algorithm (COMPUTE=1), as the search does.
  for (std::int64_t compute : {0, 1}) {
    LtAlgoConfig probe;
    probe.compute = compute;
    EXPECT_EQ(d.init(shape, lt_contract(p.precision, probe)), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulPreference_t pref = nullptr;
    EXPECT_EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t h{};
    int returned = 0;
    cublasStatus_t const s = cublasLtMatmulAlgoGetHeuristic(
        handle, d.op(), d.first(), d.second(), d.out(), d.out(), pref, 1, &h, &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    LtAlgoConfig config;
    if (s == CUBLAS_STATUS_SUCCESS && returned == 1 && lt_read_algo(h.algo, compute, config)) {
      cublasLtDestroy(handle);
      return to_kernel_config(config).id();
    }
  }
  cublasLtDestroy(handle);
  ADD_FAILURE() << "cuBLASLt offered no algorithm";
  return {};
}

/// A table whose entries are vendor picks: a cuBLASLt algorithm per case, under `version`.
std::filesystem::path write_vendor_table(cudaDeviceProp const& prop,
                                         std::vector<std::pair<Case, std::string>> const& picks,
                                         std::string const& version, char const* name) {
  nlohmann::json entries = nlohmann::json::array();
  for (auto const& [c, id] : picks) {
    nlohmann::json e = table_entry(to_string(c.precision), to_string(c.layout),
                                   static_cast<int>(c.m), static_cast<int>(c.n),
                                   static_cast<int>(c.k), id.c_str());
    e["vendor"] = true;
    if (id.rfind("cublaslt:", 0) == 0) e["cublas_version"] = version;
    entries.push_back(e);
  }
  return write_table_file(prop, std::move(entries), name);
}

// A table's vendor picks run as stored: the cuBLASLt algorithm with exactly its configuration
// (checked against a host reference, every precision, two layouts, alpha and beta), and
// cublas:default as cuBLAS; an algorithm this cuBLAS refuses, or one tuned under another cuBLAS
// version, falls back to the default call and GemmInfo says why.
TEST(RuntimeGpuVendor, StoredAlgorithmsRunAndRefusalsFallBack) {
  cudaDeviceProp prop{};
  if (!gpu(prop)) GTEST_SKIP() << "no GPU";
  std::vector<std::pair<Case, std::string>> picks;
  for (Precision p : kAllPrecisions) {
    if (is_fp8(p)) continue;  // FP8 calls carry scales: RuntimeGpuFp8 runs them
    for (Layout l : {Layout::kNN, Layout::kTT}) {
      Case c{p, l, 256, 192, 128};
      picks.emplace_back(c, heuristic_algorithm(c));
    }
  }
  Case const plain{Precision::kFP16, Layout::kNT, 128, 128, 64};
  picks.emplace_back(plain, "cublas:default");
  Case const refused{Precision::kBF16, Layout::kNT, 128, 128, 64};
  picks.emplace_back(refused,
                     "cublaslt:ALGO=4095,TILE=0,STAGES=0,SPLITK=1,RED=0,SWIZZLE=0,CUSTOM=0,"
                     "INNER=0,CLUSTER=0,COMPUTE=0");
  RuntimeOptions o;
  o.cubin_cache_dir = (std::filesystem::temp_directory_path() / "gemmtune_rt_gpu_cubins").string();
  Runtime rt(write_vendor_table(prop, picks, cublas_version(), "gemmtune_rt_vendor.json"), o);
  for (std::size_t i = 0; i + 2 < picks.size(); ++i) {
    Case c = picks[i].first;
    c.alpha = 0.5f;
    c.beta = -1.0f;
    GemmInfo const info = run_case(rt, c);
    EXPECT_EQ(info.path, GemmPath::kCublasLt) << info.detail;
    EXPECT_EQ(info.rule, "exact");
    EXPECT_EQ(info.kernel, picks[i].second);
    // The second call reuses the built algorithm and descriptors.
    EXPECT_EQ(run_case(rt, c).path, GemmPath::kCublasLt);
  }
  GemmInfo info = run_case(rt, plain);
  EXPECT_EQ(info.path, GemmPath::kCublas) << info.detail;
  EXPECT_EQ(info.kernel, "cublas:default");
  EXPECT_NE(info.detail.find("table's pick"), std::string::npos) << info.detail;
  info = run_case(rt, refused);
  EXPECT_EQ(info.path, GemmPath::kCublas) << info.detail;
  EXPECT_NE(info.detail.find("refused"), std::string::npos) << info.detail;

  Runtime other(write_vendor_table(prop, {picks[0]}, "0.0.1", "gemmtune_rt_vendor_old.json"), o);
  info = run_case(other, picks[0].first);
  EXPECT_EQ(info.path, GemmPath::kCublas) << info.detail;
  EXPECT_NE(info.detail.find("cuBLAS 0.0.1"), std::string::npos) << info.detail;
}

class RuntimeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu(prop_)) GTEST_SKIP() << "no GPU";
    RuntimeOptions o;
    o.cubin_cache_dir = (std::filesystem::temp_directory_path() / "gemmtune_rt_gpu_cubins").string();
    rt_ = std::make_unique<Runtime>(write_table(prop_), o);
  }
  cudaDeviceProp prop_{};
  std::unique_ptr<Runtime> rt_;
};

TEST_F(RuntimeGpu, TunedFp32ExactInEveryLayout) {
  for (Layout l : kAllLayouts) {
    GemmInfo const info = run_case(*rt_, Case{Precision::kFP32, l, 256, 192, 128});
    EXPECT_EQ(info.path, GemmPath::kTuned) << info.detail;
    EXPECT_EQ(info.rule, "exact");
    EXPECT_EQ(info.kernel, kBlocktile);
    EXPECT_EQ(info.align, 16);
  }
}

TEST_F(RuntimeGpu, TunedFp32NearestWithRaggedShapesPaddingAlphaBeta) {
  for (Layout l : kAllLayouts) {
    Case c{Precision::kFP32, l, 252, 188, 120};
    c.pad = 4;  // every padded ld stays a multiple of 4 floats: class 16
    c.alpha = 0.5f;
    c.beta = -2.0f;
    GemmInfo const info = run_case(*rt_, c);
    EXPECT_EQ(info.rule, "nearest") << info.detail;
    EXPECT_EQ(info.path, GemmPath::kTuned) << info.detail;
  }
}

TEST_F(RuntimeGpu, VectorConfigIsNeverRunOnLessAlignedData) {
  GemmInfo info = run_case(*rt_, Case{Precision::kFP32, Layout::kNN, 512, 512, 256});
  EXPECT_EQ(info.kernel, kVectorized);
  EXPECT_EQ(info.path, GemmPath::kTuned) << info.detail;
  Case shifted{Precision::kFP32, Layout::kNN, 512, 512, 256};
  shifted.a_offset = 1;  // A one float past an aligned base: class 4
  info = run_case(*rt_, shifted);
  EXPECT_EQ(info.align, 4);
  EXPECT_EQ(info.path, GemmPath::kCublas) << info.detail;
  EXPECT_NE(info.kernel, kVectorized);
}

TEST_F(RuntimeGpu, OtherPrecisionsFallBackToCublas) {
  for (Precision p : {Precision::kTF32, Precision::kFP16, Precision::kBF16}) {
    for (Layout l : kAllLayouts) {
      GemmInfo const info = run_case(*rt_, Case{p, l, 96, 80, 64});
      EXPECT_EQ(info.path, GemmPath::kCublas) << info.detail;
      EXPECT_EQ(info.rule, "none");
    }
  }
  GemmInfo const info = run_case(*rt_, Case{Precision::kFP32, Layout::kNN, 33, 17, 9});
  EXPECT_EQ(info.status, GemmStatus::kOk);
}

/// Exact bf16/fp16 entries at ragged shapes: wgmma kernels with the staged epilogue (TMA stores
/// of C) with one tile of C staged whole, box by box in one or two buffers, in ping-pong, and in
/// 2-block clusters whose last tile row (or column) lies past the matrix, with alpha = 1 (no
/// multiply) and alpha ≠ 1; mma kernels whose split-K slices sum through distributed shared
/// memory in clusters of 4 and 8.
struct StagedCase {
  Precision precision;
  Layout layout;
  int m, n, k;
  char const* kernel;
};
constexpr StagedCase kStaged[] = {
    {Precision::kBF16, Layout::kNN, 300, 520, 192,
     "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=2"},
    {Precision::kFP16, Layout::kTT, 520, 296, 128,
     "wgmma:BM=128,BN=256,ST=3,CW=2,CL=2,PE=1,GM=8,SK=1,EP=4"},
    {Precision::kBF16, Layout::kTN, 400, 264, 256,
     "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=2,GM=8,SK=1,EP=2"},
    {Precision::kFP16, Layout::kNT, 600, 392, 128,
     "wgmma:BM=256,BN=128,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=1"},
    // Double-buffered single boxes, over more tiles than blocks (the buffers alternate across
    // a block's tiles).
    {Precision::kBF16, Layout::kNN, 2056, 3000, 192,
     "wgmma:BM=128,BN=256,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=2"},
    {Precision::kFP16, Layout::kNT, 1800, 2200, 128,
     "wgmma:BM=128,BN=192,ST=4,CW=2,CL=1,PE=1,GM=8,SK=1,EP=2"},
    // Clusters along N sharing A: K-major slabs (NT, NN) and MN-major boxes (TN, TT) of A, an
    // odd count of tile columns (the last pair's second block lies past the matrix), the staged
    // epilogue, persistence, split-K summed in the last slice, and the deepest ring.
    {Precision::kBF16, Layout::kNT, 520, 1080, 384,
     "wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1"},
    {Precision::kFP16, Layout::kTN, 304, 936, 256,
     "wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1,EP=1,CA=1"},
    {Precision::kBF16, Layout::kNN, 1100, 1400, 640,
     "wgmma:BM=256,BN=128,ST=3,CW=2,CL=2,PE=1,GM=8,SK=1,EP=2,CA=1"},
    {Precision::kFP16, Layout::kTT, 200, 680, 2048,
     "wgmma:BM=128,BN=64,ST=8,CW=2,CL=2,PE=0,GM=1,SK=2,EP=0,CA=1"},
    // Clusters of four: along N past the matrix by three tiles (25 tile columns), and along M.
    {Precision::kBF16, Layout::kNT, 136, 1560, 1024,
     "wgmma:BM=128,BN=64,ST=6,CW=2,CL=4,PE=0,GM=1,SK=1,EP=0,CA=1"},
    {Precision::kFP16, Layout::kNN, 600, 1032, 512,
     "wgmma:BM=64,BN=256,ST=4,CW=1,CL=4,PE=1,GM=8,SK=1,EP=0,CA=0"},
    {Precision::kBF16, Layout::kNN, 40, 1000, 2048,
     "mma:BM=64,BN=64,BK=64,WM=32,WN=32,ST=3,SW=1,SK=8,CR=1"},
    {Precision::kFP16, Layout::kTT, 72, 520, 1032,
     "mma:BM=128,BN=64,BK=32,WM=64,WN=32,ST=3,SW=1,SK=4,CR=1"},
};

/// A table of one exact entry per case (16-byte alignment class), written as `file_name`.
std::filesystem::path write_cases_table(cudaDeviceProp const& prop,
                                        std::span<StagedCase const> cases,
                                        char const* file_name) {
  nlohmann::json entries = nlohmann::json::array();
  for (StagedCase const& c : cases) {
    entries.push_back(table_entry(to_string(c.precision), to_string(c.layout), c.m, c.n, c.k,
                                  c.kernel));
  }
  return write_table_file(prop, std::move(entries), file_name);
}

TEST(RuntimeGpuStaged, TunedSixteenBitKernelsOnRaggedShapesWithAndWithoutBeta) {
  cudaDeviceProp prop{};
  if (!gpu(prop)) GTEST_SKIP() << "no GPU";
  if (prop.major != 9) GTEST_SKIP() << "wgmma needs sm_90";
  RuntimeOptions o;
  o.cubin_cache_dir = (std::filesystem::temp_directory_path() / "gemmtune_rt_gpu_cubins").string();
  Runtime rt(write_cases_table(prop, kStaged, "gemmtune_rt_gpu_staged_table.json"), o);
  for (StagedCase const& s : kStaged) {
    for (float alpha : {1.0f, 1.5f}) {
      for (float beta : {0.0f, -2.0f}) {
        Case c{s.precision, s.layout, s.m, s.n, s.k};
        c.pad = 8;  // 16 bytes of 16-bit elements: every ld stays in class 16
        c.alpha = alpha;
        c.beta = beta;
        GemmInfo const info = run_case(rt, c);
        EXPECT_EQ(info.path, GemmPath::kTuned) << s.kernel << ": " << info.detail;
        EXPECT_EQ(info.kernel, s.kernel);
      }
    }
  }
}

/// Swapped operands (SW = 1): the kernel computes Cᵀ = Bᵀ·Aᵀ from the caller's storage and
/// stores C transposed, in every layout, with ragged tiles both ways (M against BN, N against
/// BM), persistent and grouped, split-K summed in the last slice and through the reduce kernel,
/// 2-block clusters sharing the kernel's B (the caller's A) with one block past the matrix, a
/// cluster sharing the kernel's A, and a pair splitting K; alpha, beta and padded rows.
constexpr StagedCase kSwapped[] = {
    {Precision::kBF16, Layout::kNN, 200, 1032, 520,
     "wgmma:BM=128,BN=208,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0,SW=1"},
    {Precision::kFP16, Layout::kTT, 96, 1000, 264,
     "wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=1,GM=8,SK=1,EP=0,SW=1"},
    {Precision::kBF16, Layout::kTN, 200, 776, 2048,
     "wgmma:BM=128,BN=96,ST=6,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0,SW=1"},
    {Precision::kFP16, Layout::kNT, 136, 640, 1024,
     "wgmma:BM=64,BN=160,ST=6,CW=1,CL=1,PE=0,GM=1,SK=4,EP=0,SW=1"},
    {Precision::kBF16, Layout::kNN, 96, 1560, 1024,
     "wgmma:BM=128,BN=96,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=0,ML=1,SW=1"},
    {Precision::kBF16, Layout::kNT, 64, 520, 192,
     "wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1,SW=1"},
    {Precision::kFP16, Layout::kTN, 200, 1040, 4096,
     "wgmma:BM=128,BN=208,ST=4,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=2,SW=1"},
};

TEST(RuntimeGpuSwapped, SwappedOperandsStoreCTransposedWithAndWithoutBeta) {
  cudaDeviceProp prop{};
  if (!gpu(prop)) GTEST_SKIP() << "no GPU";
  if (prop.major != 9) GTEST_SKIP() << "wgmma needs sm_90";
  RuntimeOptions o;
  o.cubin_cache_dir = (std::filesystem::temp_directory_path() / "gemmtune_rt_gpu_cubins").string();
  Runtime rt(write_cases_table(prop, kSwapped, "gemmtune_rt_gpu_swapped_table.json"), o);
  for (StagedCase const& s : kSwapped) {
    for (float beta : {0.0f, -2.0f}) {
      Case c{s.precision, s.layout, s.m, s.n, s.k};
      c.pad = 8;  // 16 bytes of 16-bit elements: every ld stays in class 16
      c.alpha = 1.5f;
      c.beta = beta;
      GemmInfo const info = run_case(rt, c);
      EXPECT_EQ(info.path, GemmPath::kTuned) << s.kernel << ": " << info.detail;
      EXPECT_EQ(info.kernel, s.kernel);
    }
  }
}

/// 16-bit wgmma entries below 16-byte alignment (class 2): an odd K (A's rows), an odd N (C's
/// rows only: no copy, single-element stores), every leading dimension odd, and A one element
/// past an aligned base; register epilogues with and without beta, split-K in the last slice
/// and through the reduce kernel. Each call copies what TMA cannot read and matches the FP64
/// reference.
struct UnalignedCase {
  Precision precision;
  Layout layout;
  int m, n, k;
  int pad, a_offset;
  char const* kernel;
};
constexpr UnalignedCase kUnaligned[] = {
    {Precision::kBF16, Layout::kNN, 300, 520, 1001, 0, 0,
     "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0"},
    {Precision::kFP16, Layout::kNT, 257, 1001, 640, 0, 0,
     "wgmma:BM=128,BN=64,ST=4,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0"},
    {Precision::kBF16, Layout::kTT, 520, 296, 128, 1, 0,
     "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=2,EP=0"},
    {Precision::kFP16, Layout::kNN, 256, 384, 512, 0, 1,
     "wgmma:BM=64,BN=128,ST=4,CW=1,CL=1,PE=0,GM=1,SK=4,EP=0"},
    {Precision::kBF16, Layout::kTN, 1537, 999, 777, 0, 0,
     "wgmma:BM=128,BN=128,ST=4,CW=2,CL=2,PE=2,GM=8,SK=1,EP=0"},
    {Precision::kFP16, Layout::kNT, 390, 950, 513, 0, 0,
     "wgmma:BM=128,BN=64,ST=6,CW=2,CL=2,PE=0,GM=1,SK=1,EP=0,CA=1"},
};

TEST(RuntimeGpuUnaligned, WgmmaReadsPaddedCopiesOfWhatTmaCannotLoad) {
  cudaDeviceProp prop{};
  if (!gpu(prop)) GTEST_SKIP() << "no GPU";
  if (prop.major != 9) GTEST_SKIP() << "wgmma needs sm_90";
  nlohmann::json entries = nlohmann::json::array();
  for (UnalignedCase const& c : kUnaligned) {
    entries.push_back(table_entry(to_string(c.precision), to_string(c.layout), c.m, c.n, c.k,
                                  c.kernel, 2));
  }
  RuntimeOptions o;
  o.cubin_cache_dir = (std::filesystem::temp_directory_path() / "gemmtune_rt_gpu_cubins").string();
  Runtime rt(write_table_file(prop, std::move(entries), "gemmtune_rt_gpu_unaligned_table.json"),
             o);
  for (UnalignedCase const& u : kUnaligned) {
    for (float beta : {0.0f, -2.0f}) {
      Case c{u.precision, u.layout, u.m, u.n, u.k};
      c.pad = u.pad;
      c.a_offset = u.a_offset;
      c.alpha = 1.5f;
      c.beta = beta;
      GemmInfo const info = run_case(rt, c);
      EXPECT_EQ(info.align, 2) << u.kernel;
      EXPECT_EQ(info.rule, "exact") << u.kernel << ": " << info.detail;
      EXPECT_EQ(info.path, GemmPath::kTuned) << u.kernel << ": " << info.detail;
      EXPECT_EQ(info.kernel, u.kernel);
    }
  }
}

/// One FP8 call (e4m3 B, A e4m3 or e5m2, layout NT, bf16 C) of M×N×K through `rt` with scales in device
/// memory: per-tensor 0.5 and 0.25, (kE4M3Row) a power of two per row of A and per column of
/// B, or (kE4M3Blk) one per row of A and 128 of K and one per 128×128 block of B, in the layouts
/// of src/core/precision.hpp; inputs from {0, ±0.5, ±1}, exact in FP8, and C checked against an
/// FP64 reference of the scaled product (bf16 rounding allowed).
GemmInfo run_fp8(Runtime& rt, int m, int n, int k, float alpha, float beta,
                 Precision precision = Precision::kE4M3) {
  bool const rows = row_scaled(precision);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(0, 4);
  float const values[5] = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f};
  std::uint8_t const codes[5] = {0xB8, 0xB0, 0x00, 0x30, 0x38};  // e4m3 bit patterns
  std::uint8_t const codes_e5m2[5] = {0xBC, 0xB8, 0x00, 0x38, 0x3C};
  std::uint8_t const* const a_codes = a_is_e5m2(precision) ? codes_e5m2 : codes;
  std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(n) * k);
  std::vector<std::uint8_t> a8(a.size()), b8(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    int const v = pick(rng);
    a[i] = values[v];
    a8[i] = a_codes[v];
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    int const v = pick(rng);
    b[i] = values[v];
    b8[i] = codes[v];
  }
  std::vector<std::uint16_t> c0(static_cast<std::size_t>(m) * n);
  for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = to_bf16_bits(values[pick(rng)]);
  // A's then B's, each from a 16-byte boundary: one float each, M and N of them, or blocks.
  bool const blocks = block_scaled(precision);
  std::size_t const a_count = static_cast<std::size_t>(scale_a_count(precision, m, k));
  std::size_t const b_at = std::max<std::size_t>((a_count + 3) / 4 * 4, 4);
  std::vector<float> scales(b_at + static_cast<std::size_t>(scale_b_count(precision, n, k)), 0.0f);
  // The scale of row i (column j) and K block kb of A (B).
  auto const sa_of = [&](int i, int kb) {
    if (blocks) return (i + kb) % 3 == 0 ? 2.0f : (i + kb) % 3 == 1 ? 0.5f : 1.0f;
    return rows ? (i % 3 == 0 ? 2.0f : i % 3 == 1 ? 0.5f : 1.0f) : 0.5f;
  };
  auto const sb_of = [&](int j, int kb) {
    if (blocks) return (j / 128 + 2 * kb) % 4 < 2 ? 0.25f : 1.0f;
    return rows ? (j % 4 < 2 ? 0.25f : 1.0f) : 0.25f;
  };
  int const kblocks = blocks ? static_cast<int>(scale_blocks(k)) : 1;
  for (int kb = 0; kb < kblocks; ++kb) {
    for (int i = 0; i < (rows || blocks ? m : 1); ++i) {
      scales[blocks ? static_cast<std::size_t>(block_scale_a_index(m, i, kb)) : i] = sa_of(i, kb);
    }
    for (int j = 0; j < (rows || blocks ? n : 1); j += blocks ? 128 : 1) {
      scales[b_at + (blocks ? static_cast<std::size_t>(block_scale_b_index(k, j, kb)) : j)] =
          sb_of(j, kb);
    }
  }
  void *da = nullptr, *db = nullptr, *dc = nullptr, *ds = nullptr;
  EXPECT_EQ(cudaMalloc(&da, a8.size()), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&db, b8.size()), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dc, c0.size() * 2), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&ds, scales.size() * sizeof(float)), cudaSuccess);
  cudaMemcpy(da, a8.data(), a8.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b8.data(), b8.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c0.data(), c0.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, scales.data(), scales.size() * sizeof(float), cudaMemcpyHostToDevice);
  float const* sa = static_cast<float const*>(ds);
  GemmInfo info;
  GemmStatus const status = rt.gemm(precision, Layout::kNT, m, n, k, alpha, da, k, db, k, beta,
                                    dc, n, Fp8Scales{sa, sa + b_at}, nullptr, &info);
  EXPECT_EQ(status, GemmStatus::kOk) << info.detail;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::uint16_t> out(c0.size());
  cudaMemcpy(out.data(), dc, out.size() * 2, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        int const kb = blocks ? kk / 128 : 0;
        acc += static_cast<double>(a[static_cast<std::size_t>(i) * k + kk]) *
               b[static_cast<std::size_t>(j) * k + kk] * sa_of(i, kb) * sb_of(j, kb);
      }
      std::size_t const at = static_cast<std::size_t>(i) * n + j;
      double const want = alpha * acc + beta * from_bf16_bits(c0[at]);
      double const got = from_bf16_bits(out[at]);
      if (!(std::abs(got - want) <= std::abs(want) / 128.0 + 1e-3) && ++bad <= 5) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(bad, 0) << info.detail;
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(ds);
  return info;
}

TEST(RuntimeGpuFp8, ScaledCallsRunTheTablesKernelOrCublasLtsHeuristic) {
  cudaDeviceProp prop{};
  if (!gpu(prop)) GTEST_SKIP() << "no GPU";
  if (prop.major * 10 + prop.minor < 89) GTEST_SKIP() << "FP8 needs sm_89 or later";
  RuntimeOptions o;
  o.cubin_cache_dir = (std::filesystem::temp_directory_path() / "gemmtune_rt_gpu_cubins").string();
  for (Precision const p : {Precision::kE4M3, Precision::kE4M3Row, Precision::kE4M3Blk,
                            Precision::kE5M2, Precision::kE5M2Row, Precision::kE5M2Blk}) {
    std::string const name(to_string(p));
    SCOPED_TRACE(name);
    // No table: cuBLASLt's heuristic algorithm, since cublasGemmEx takes no FP8.
    Runtime plain(o);
    for (float beta : {0.0f, -1.0f}) {
      GemmInfo const info = run_fp8(plain, 256, 512, 1024, 1.0f, beta, p);
      EXPECT_EQ(info.path, GemmPath::kCublasLt) << info.detail;
      EXPECT_NE(info.detail.find("heuristic"), std::string::npos) << info.detail;
    }
    if (prop.major != 9) continue;  // the wgmma family below needs sm_90
    nlohmann::json entries = nlohmann::json::array();
    // Split-K at SK = 4 sums the scaled partials in the reduce kernel.
    char const* const kernel = "wgmma:BM=128,BN=128,ST=4,CW=2,CL=1,PE=0,GM=1,SK=1,EP=0";
    char const* const split = "wgmma:BM=64,BN=128,ST=6,CW=1,CL=1,PE=0,GM=1,SK=4,EP=0";
    entries.push_back(table_entry(name, "NT", 256, 512, 1024, kernel));
    entries.push_back(table_entry(name, "NT", 64, 128, 4096, split));
    entries.push_back(table_entry(name, "NT", 128, 256, 512, "cublas:default"));
    entries.back()["vendor"] = true;
    entries.back()["cublas_version"] = cublas_version();
    // Block scales: the consumer warpgroups taking turns at the wgmma, in a cluster, over more
    // tiles than SMs' worth of clusters (persistent), with a ragged edge.
    char const* const turns = "wgmma:BM=128,BN=128,ST=6,CW=2,CL=2,PE=1,GM=8,SK=1,EP=0,CA=0,TU=1";
    if (block_scaled(p)) entries.push_back(table_entry(name, "NT", 2056, 2176, 1024, turns));
    std::string const file = "gemmtune_rt_gpu_" + name + "_table.json";
    Runtime rt(write_table_file(prop, std::move(entries), file.c_str()), o);
    for (float alpha : {1.0f, 2.0f}) {
      GemmInfo info = run_fp8(rt, 256, 512, 1024, alpha, alpha == 1.0f ? 0.0f : 0.5f, p);
      EXPECT_EQ(info.path, GemmPath::kTuned) << info.detail;
      EXPECT_EQ(info.kernel, kernel);
      info = run_fp8(rt, 64, 128, 4096, alpha, 0.0f, p);
      EXPECT_EQ(info.path, GemmPath::kTuned) << info.detail;
      EXPECT_EQ(info.kernel, split);
      info = run_fp8(rt, 128, 256, 512, alpha, 0.0f, p);
      EXPECT_EQ(info.path, GemmPath::kCublasLt) << info.detail;
      EXPECT_EQ(info.kernel, "cublas:default");
      if (block_scaled(p)) {
        info = run_fp8(rt, 2056, 2176, 1024, alpha, 0.0f, p);
        EXPECT_EQ(info.path, GemmPath::kTuned) << info.detail;
        EXPECT_EQ(info.kernel, turns);
      }
    }
  }
}

TEST_F(RuntimeGpu, RepeatedCallHostOverhead) {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&a), 256 * 128 * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b), 128 * 192 * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&c), 256 * 192 * 4), cudaSuccess);
  GemmInfo info;
  ASSERT_EQ(rt_->gemm(Precision::kFP32, Layout::kNN, 256, 192, 128, 1.0f, a, 128, b, 192, 0.0f, c,
                      192, nullptr, &info),
            GemmStatus::kOk);
  ASSERT_EQ(info.path, GemmPath::kTuned) << info.detail;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<double> us;
  for (int i = 0; i < 200; ++i) {
    auto const t0 = std::chrono::steady_clock::now();
    GemmStatus const s = rt_->gemm(Precision::kFP32, Layout::kNN, 256, 192, 128, 1.0f, a, 128, b,
                                   192, 0.0f, c, 192);
    auto const t1 = std::chrono::steady_clock::now();
    ASSERT_EQ(s, GemmStatus::kOk);
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (i % 50 == 49) {
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
  }
  std::sort(us.begin(), us.end());
  double const median = us[us.size() / 2];
  std::printf("runtime gemm host time per call (tuned, after the first): median %.2f us, p90 %.2f us\n",
              median, us[us.size() * 9 / 10]);
  EXPECT_LT(median, 20.0);  // the target is 5 us; this bounds regressions
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

}  // namespace
}  // namespace gemmtune
