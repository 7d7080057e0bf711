// Host-only pieces of the GPU side (no device needed): fp16/bf16 conversions, the tolerance
// model against an FP64 CPU reference, exact comparison, sticky-error classification, input
// generation, and the device probe with every device hidden.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>

#include "gpu/cuda_errors.hpp"
#include "gpu/float_conversion.hpp"
#include "gpu/gpu_session.hpp"
#include "gpu/host_inputs.hpp"
#include "gpu/timing_protocol.hpp"
#include "gpu/verifier.hpp"

namespace gemmtune {
namespace {

// Hide every device from this process before any CUDA call, so the probe test means the same
// on a GPU machine as on a CPU-only one.
int const kDevicesHidden = (setenv("CUDA_VISIBLE_DEVICES", "", 1), 0);

TEST(FloatConversion, HalfKnownValues) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65519.99f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // tie goes to even: infinity
  EXPECT_EQ(float_to_half(1e10f), 0x7c00);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: zero
  EXPECT_EQ(float_to_half(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 ulp ties to 2
  EXPECT_EQ(float_to_half(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie, even stays
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie, odd goes up
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_TRUE(std::isinf(half_to_float(0xfc00)));
}

TEST(FloatConversion, HalfRoundTripsEveryPattern) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    auto const h = static_cast<std::uint16_t>(bits);
    float const f = half_to_float(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f)))) << bits;
    } else {
      ASSERT_EQ(float_to_half(f), h) << "pattern " << bits;
    }
  }
}

TEST(FloatConversion, HalfRoundsToNearest) {
  // Against the midpoint of every pair of neighbouring positive finite halves.
  for (std::uint16_t h = 0; h < 0x7bff; ++h) {
    float const lo = half_to_float(h), hi = half_to_float(static_cast<std::uint16_t>(h + 1));
    float const mid = 0.5f * (lo + hi);  // exact: halves have few mantissa bits
    std::uint16_t const even = (h & 1u) ? static_cast<std::uint16_t>(h + 1) : h;
    ASSERT_EQ(float_to_half(mid), even) << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, 0.0f)), h) << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, 1e9f)), h + 1) << h;
  }
}

TEST(FloatConversion, BFloat16) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie, even stays
  EXPECT_EQ(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie, odd goes up
  EXPECT_EQ(float_to_bfloat16(3.4028235e38f), 0x7f80);  // rounds past the largest to inf
  EXPECT_EQ(float_to_bfloat16(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
  // A NaN whose payload sits only in the dropped bits must stay NaN, not become inf.
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::bit_cast<float>(0x7f800001u)))));
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    auto const b = static_cast<std::uint16_t>(bits);
    float const f = bfloat16_to_float(b);
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bfloat16(f), b) << bits;
  }
}

TEST(CudaErrors, StickyClassification) {
  for (int code : {700, 702, 710, 714, 715, 716, 717, 718, 719, 999}) {
    EXPECT_TRUE(is_sticky(code)) << code;
  }
  // Launch-time refusals and plain API errors leave the context usable.
  for (int code : {0, 1, 2, 9, 98, 200, 209, 218, 222, 500, 701, 720}) {
    EXPECT_FALSE(is_sticky(code)) << code;
  }
  EXPECT_NE(cuda_error_text(700).find("cudaErrorIllegalAddress (700)"), std::string::npos);
  EXPECT_THROW(check_cuda(2, "cudaMalloc"), CudaFailure);
  EXPECT_NO_THROW(check_cuda(0, "cudaMalloc"));
  try {
    check_cuda(716, "copy");
  } catch (CudaFailure const& f) {
    EXPECT_EQ(f.cuda_error(), 716);
    EXPECT_NE(std::string(f.what()).find("copy: cudaErrorMisalignedAddress"), std::string::npos);
  }
}

TEST(ToleranceModel, Figures) {
  double const u = std::ldexp(1.0, -24);
  ToleranceModel const f32 = tolerance_model(Precision::kFP32, 1024, 100.0);
  EXPECT_DOUBLE_EQ(f32.tau_in, 0.0);
  EXPECT_DOUBLE_EQ(f32.gamma, kGammaC * 32.0 * u);
  EXPECT_DOUBLE_EQ(f32.u_out, u);
  EXPECT_DOUBLE_EQ(f32.floor, 1e-4);
  EXPECT_DOUBLE_EQ(f32.bound(2.0, -3.0), 2.0 * f32.gamma + 3.0 * u + 1e-4);
  EXPECT_DOUBLE_EQ(tolerance_model(Precision::kTF32, 1, 1.0).tau_in, std::ldexp(1.0, -9));
  EXPECT_DOUBLE_EQ(tolerance_model(Precision::kFP16, 1, 1.0).u_out, std::ldexp(1.0, -11));
  EXPECT_DOUBLE_EQ(tolerance_model(Precision::kBF16, 1, 1.0).u_out, std::ldexp(1.0, -8));
  EXPECT_DOUBLE_EQ(tolerance_model(Precision::kFP16, 1, 0.0).floor, std::ldexp(1.0, -25));
}

TEST(ToleranceCompare, ReportsWorstElementAndNaN) {
  std::vector<float> const r = {1, 2, 3, 4, 5, 6};
  std::vector<float> const s = {1, 1, 1, 1, 1, 1};
  ToleranceModel const m = tolerance_model(Precision::kFP32, 4, 1.0);
  ToleranceReport ok = compare_with_tolerance(r, r, s, 3, m);
  EXPECT_TRUE(ok.pass);
  EXPECT_EQ(ok.max_err_ratio, 0.0);
  EXPECT_TRUE(ok.reason.empty());

  std::vector<float> c = r;
  c[5] += 0.5f;  // element (1,2)
  ToleranceReport bad = compare_with_tolerance(c, r, s, 3, m);
  EXPECT_FALSE(bad.pass);
  EXPECT_EQ(bad.bad_elements, 1);
  EXPECT_NEAR(bad.max_abs_err, 0.5, 1e-6);
  EXPECT_GT(bad.max_err_ratio, 1.0);
  EXPECT_NE(bad.reason.find("at (i,j)=(1,2); 1 bad element"), std::string::npos) << bad.reason;

  c = r;
  c[0] = std::nanf("");
  ToleranceReport nan = compare_with_tolerance(c, r, s, 3, m);
  EXPECT_FALSE(nan.pass);
  EXPECT_NE(nan.reason.find("unwritten output (NaN) at (i,j)=(0,0)"), std::string::npos)
      << nan.reason;
  c[0] = INFINITY;
  EXPECT_FALSE(compare_with_tolerance(c, r, s, 3, m).pass);
}

/// An M×N×K problem with FP64 reference R, S = |A||B| and the FP32 sequential result; `drop`
/// leaves out the last k term, `tf32` rounds inputs to TF32 (10 mantissa bits) first.
struct CpuGemm {
  std::vector<float> c, r, s;
  double max_s = 0;
};
CpuGemm cpu_gemm(int m, int n, int k, bool drop, bool tf32) {
  std::vector<float> a = random_normal(static_cast<std::size_t>(m) * k, 5, 1);
  std::vector<float> b = random_normal(static_cast<std::size_t>(k) * n, 5, 2);
  auto round_tf32 = [](float v) {
    std::uint32_t x = std::bit_cast<std::uint32_t>(v);
    x = (x + 0xfffu + ((x >> 13) & 1u)) & ~0x1fffu;
    return std::bit_cast<float>(x);
  };
  CpuGemm g;
  g.c.resize(static_cast<std::size_t>(m) * n);
  g.r.resize(g.c.size());
  g.s.resize(g.c.size());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double exact = 0, abs_sum = 0;
      float acc = 0;
      for (int p = 0; p < k; ++p) {
        float const av = a[static_cast<std::size_t>(i) * k + p];
        float const bv = b[static_cast<std::size_t>(p) * n + j];
        exact += static_cast<double>(av) * bv;
        abs_sum += std::fabs(static_cast<double>(av) * bv);
        if (drop && p == k - 1) continue;
        acc = tf32 ? std::fma(round_tf32(av), round_tf32(bv), acc) : std::fma(av, bv, acc);
      }
      std::size_t const idx = static_cast<std::size_t>(i) * n + j;
      g.c[idx] = acc;
      g.r[idx] = static_cast<float>(exact);
      g.s[idx] = static_cast<float>(abs_sum);
      g.max_s = std::max(g.max_s, abs_sum);
    }
  }
  return g;
}

TEST(ToleranceCompare, AgainstFp64Reference) {
  int const m = 48, n = 40, k = 300;
  CpuGemm const good = cpu_gemm(m, n, k, false, false);
  ToleranceReport const ok = compare_with_tolerance(
      good.c, good.r, good.s, n, tolerance_model(Precision::kFP32, k, good.max_s));
  EXPECT_TRUE(ok.pass) << ok.reason;
  EXPECT_LT(ok.max_err_ratio, 0.5);
  EXPECT_GT(ok.rel_fro_err, 0.0);

  CpuGemm const dropped = cpu_gemm(m, n, k, true, false);
  ToleranceReport const bad = compare_with_tolerance(
      dropped.c, dropped.r, dropped.s, n, tolerance_model(Precision::kFP32, k, dropped.max_s));
  EXPECT_FALSE(bad.pass);
  EXPECT_GT(bad.bad_elements, m * n / 2);

  // TF32 arithmetic fails the FP32 contract at this K but passes the TF32 one.
  CpuGemm const t = cpu_gemm(m, n, k, false, true);
  EXPECT_FALSE(
      compare_with_tolerance(t.c, t.r, t.s, n, tolerance_model(Precision::kFP32, k, t.max_s)).pass);
  ToleranceReport const tf = compare_with_tolerance(
      t.c, t.r, t.s, n, tolerance_model(Precision::kTF32, k, t.max_s));
  EXPECT_TRUE(tf.pass) << tf.reason;
}

TEST(ExactCompare, CountsMismatches) {
  std::vector<float> const r = {1, 0, -3, 4};
  std::vector<float> c = {1, -0.0f, -3, 4};
  EXPECT_EQ(compare_exact(c, r, 2).mismatches, 0);  // −0 equals +0
  c[2] = -2;
  c[3] = std::nanf("");
  ExactReport const x = compare_exact(c, r, 2);
  EXPECT_EQ(x.mismatches, 2);
  EXPECT_NE(x.reason.find("2 of 4 elements differ"), std::string::npos) << x.reason;
  EXPECT_NE(x.reason.find("(i,j)=(1,0)"), std::string::npos) << x.reason;
}

TEST(HostInputs, SeededAndTyped) {
  auto const a = random_normal(1000, 42, 1);
  EXPECT_EQ(a, random_normal(1000, 42, 1));
  EXPECT_NE(a, random_normal(1000, 42, 2));
  EXPECT_NE(a, random_normal(1000, 43, 1));
  for (float v : a) EXPECT_NE(v, 0.0f);
  auto const ints = random_small_integers(1000, 1, 1, 2);
  bool seen_negative = false;
  for (float v : ints) {
    EXPECT_EQ(v, std::round(v));
    EXPECT_LE(std::fabs(v), 2.0f);
    seen_negative |= v < 0;
  }
  EXPECT_TRUE(seen_negative);

  for (Precision p : kAllPrecisions) {
    auto const bytes = to_storage(a, p);
    ASSERT_EQ(bytes.size(), a.size() * static_cast<std::size_t>(element_bytes(p)));
    auto const back = from_storage(bytes, p);
    double const tol = p == Precision::kBF16 ? std::ldexp(1.0, -8)
                       : p == Precision::kFP16 ? std::ldexp(1.0, -11)
                                               : 0.0;
    auto const abs_back = from_storage(abs_storage(bytes, p), p);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_LE(std::fabs(back[i] - a[i]), tol * std::fabs(a[i]) + 1e-7) << to_string(p);
      EXPECT_EQ(abs_back[i], std::fabs(back[i]));
    }
  }
}

TEST(Timing, Median) {
  EXPECT_EQ(median_of({}), 0.0);
  EXPECT_EQ(median_of({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median_of({4.0, 1.0, 3.0, 2.0}), 2.5);
}

TEST(DeviceProbe, NoDeviceGivesReason) {
  ASSERT_EQ(kDevicesHidden, 0);
  DeviceReport const r = probe_device();
  EXPECT_FALSE(r.present);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_NE(r.reason.find("cudaGetDeviceCount"), std::string::npos) << r.reason;
  EXPECT_EQ(r.reason.find('\n'), std::string::npos);
  EXPECT_FALSE(r.cuda_runtime.empty());
  EXPECT_NE(r.cublas.find('.'), std::string::npos) << r.cublas;
  EXPECT_THROW(GpuSession{}, Error);

  nlohmann::json const j = r;
  DeviceReport const back = j.get<DeviceReport>();
  EXPECT_EQ(back.present, r.present);
  EXPECT_EQ(back.reason, r.reason);
  EXPECT_EQ(back.cublas, r.cublas);
  EXPECT_EQ(back.limits, r.limits);
  EXPECT_EQ(back.gpu, r.gpu);
}

TEST(DeviceProbe, JsonRoundTripOfAFullReport) {
  DeviceReport r;
  r.present = true;
  r.gpu = {"NVIDIA H200", 9, 0, 132};
  r.limits = *arch_limits("sm_90");
  r.limits.sm_count = 132;
  r.limits.l2_bytes = 60 << 20;
  r.driver = "13000";
  r.cuda_runtime = "13000";
  r.cublas = "13.1.0";
  r.clock_mhz = 1980;
  r.memory_clock_mhz = 3201;
  r.memory_bytes = 150000000000LL;
  DeviceReport const back = nlohmann::json(r).get<DeviceReport>();
  EXPECT_EQ(back.gpu, r.gpu);
  EXPECT_EQ(back.limits, r.limits);
  EXPECT_EQ(back.memory_bytes, r.memory_bytes);
  EXPECT_EQ(back.clock_mhz, 1980);
  EXPECT_EQ(back.driver, "13000");
}

}  // namespace
}  // namespace gemmtune
