// Host-only pieces of the GPU side (no device needed): fp16/bf16 conversions, the tolerance
// model against an FP64 CPU reference, exact comparison (parallel equal to serial), sticky-error classification, input
// generation, the device probe with every device hidden, and the board sampler's windows over
// a fake sensor.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "src/gpu/board_sampler.hpp"
#include "src/gpu/device_sensors.hpp"
#include "src/gpu/float_conversion.hpp"
#include "src/gpu/device_probe.hpp"
#include "src/gpu/gpu_session.hpp"
#include "src/gpu/host_inputs.hpp"
#include "src/gpu/host_parallel.hpp"
#include "src/gpu/timing_protocol.hpp"
#include "src/gpu/verifier.hpp"
#include "src/launch/cuda_errors.hpp"

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

/// Every finite FP8 pattern below `end` (the first non-finite one) round-trips through `to` and
/// `from` with either sign, and the values increase strictly with the bits.
void expect_fp8_round_trips(int end, std::uint8_t (*to)(float), float (*from)(std::uint8_t)) {
  float previous = -1.0f;
  for (int bits = 0; bits < end; ++bits) {
    auto const b = static_cast<std::uint8_t>(bits);
    float const f = from(b);
    ASSERT_EQ(to(f), b) << bits;
    ASSERT_EQ(to(-f), b | 0x80) << bits;
    ASSERT_GT(f, previous) << bits;
    previous = f;
  }
}

TEST(FloatConversion, E4m3KnownValues) {
  EXPECT_EQ(float_to_e4m3(1.0f), 0x38);    // field 7, mantissa 0
  EXPECT_EQ(float_to_e4m3(-2.0f), 0xc0);
  EXPECT_EQ(float_to_e4m3(448.0f), 0x7e);  // the largest finite
  EXPECT_EQ(float_to_e4m3(1e6f), 0x7e);    // saturates, never NaN
  EXPECT_EQ(float_to_e4m3(-1e6f), 0xfe);
  EXPECT_EQ(float_to_e4m3(std::ldexp(1.0f, -6)), 0x08);  // the smallest normal
  EXPECT_EQ(float_to_e4m3(std::ldexp(1.0f, -9)), 0x01);  // the smallest subnormal
  EXPECT_EQ(float_to_e4m3(std::ldexp(1.0f, -10)), 0x00);  // tie to even (zero)
  EXPECT_EQ(float_to_e4m3(3 * std::ldexp(1.0f, -10)), 0x02);  // tie to even (2 · 2^-9)
  EXPECT_EQ(float_to_e4m3(1.0625f), 0x38);  // 1 + 1/16: tie, even stays
  EXPECT_EQ(float_to_e4m3(1.1875f), 0x3a);  // 1 + 3/16: tie, odd goes up
  EXPECT_EQ(float_to_e4m3(1.9375f), 0x40);  // rounds up into the next binade: 2.0
  EXPECT_EQ(float_to_e4m3(-0.0f), 0x80);
  EXPECT_EQ(float_to_e4m3(std::nanf("")), 0x7f);
  EXPECT_TRUE(std::isnan(e4m3_to_float(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3_to_float(0xff)));
  EXPECT_EQ(e4m3_to_float(0x7e), 448.0f);
  EXPECT_EQ(e4m3_to_float(0x01), std::ldexp(1.0f, -9));
  expect_fp8_round_trips(0x7f, float_to_e4m3, e4m3_to_float);
}

TEST(FloatConversion, E5m2KnownValues) {
  EXPECT_EQ(float_to_e5m2(1.0f), 0x3c);      // field 15, mantissa 0
  EXPECT_EQ(float_to_e5m2(-2.0f), 0xc0);
  EXPECT_EQ(float_to_e5m2(57344.0f), 0x7b);  // the largest finite
  EXPECT_EQ(float_to_e5m2(1e6f), 0x7b);      // saturates, never inf
  EXPECT_EQ(float_to_e5m2(-1e6f), 0xfb);
  EXPECT_EQ(float_to_e5m2(std::ldexp(1.0f, -14)), 0x04);  // the smallest normal
  EXPECT_EQ(float_to_e5m2(std::ldexp(1.0f, -16)), 0x01);  // the smallest subnormal
  EXPECT_EQ(float_to_e5m2(std::ldexp(1.0f, -17)), 0x00);  // tie to even (zero)
  EXPECT_EQ(float_to_e5m2(3 * std::ldexp(1.0f, -17)), 0x02);  // tie to even (2 · 2^-16)
  EXPECT_EQ(float_to_e5m2(1.125f), 0x3c);   // 1 + 1/8: tie, even stays
  EXPECT_EQ(float_to_e5m2(1.375f), 0x3e);   // 1 + 3/8: tie, odd goes up
  EXPECT_EQ(float_to_e5m2(1.875f), 0x40);   // rounds up into the next binade: 2.0
  EXPECT_EQ(float_to_e5m2(-0.0f), 0x80);
  EXPECT_EQ(float_to_e5m2(std::nanf("")), 0x7f);
  EXPECT_TRUE(std::isnan(e5m2_to_float(0x7f)));
  EXPECT_TRUE(std::isinf(e5m2_to_float(0x7c)));
  EXPECT_EQ(e5m2_to_float(0x7b), 57344.0f);
  EXPECT_EQ(e5m2_to_float(0x01), std::ldexp(1.0f, -16));
  expect_fp8_round_trips(0x7c, float_to_e5m2, e5m2_to_float);
  // e5m2 is the top byte of binary16: every finite pattern matches half_to_float of it.
  for (int bits = 0; bits < 0x7c; ++bits) {
    ASSERT_EQ(e5m2_to_float(static_cast<std::uint8_t>(bits)),
              half_to_float(static_cast<std::uint16_t>(bits << 8)))
        << bits;
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
  // e4m3: exact inputs (the reference widens the same quantized values), the tensor cores'
  // ~14-bit FP8 sums over K/32 steps, a bf16 output.
  ToleranceModel const f8 = tolerance_model(Precision::kE4M3, 4096, 1.0);
  EXPECT_DOUBLE_EQ(f8.tau_in, 0.0);
  EXPECT_DOUBLE_EQ(f8.gamma, kGammaC * std::sqrt(128.0) * std::ldexp(1.0, -kFp8AccumBits));
  EXPECT_DOUBLE_EQ(f8.u_out, std::ldexp(1.0, -8));
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

/// The comparison as a plain serial loop, kept here as the specification the blocked,
/// multi-threaded one must reproduce.
ToleranceReport serial_tolerance(std::vector<float> const& c, std::vector<float> const& r,
                                 std::vector<float> const& s, ToleranceModel const& m,
                                 std::int64_t& worst, std::int64_t& first_nonfinite) {
  ToleranceReport rep;
  worst = -1;
  first_nonfinite = -1;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    double const cv = c[i], rv = r[i];
    if (!std::isfinite(cv) || !std::isfinite(rv)) {
      ++rep.bad_elements;
      if (first_nonfinite < 0) first_nonfinite = static_cast<std::int64_t>(i);
      continue;
    }
    double const err = std::fabs(cv - rv), ratio = err / m.bound(s[i], rv);
    diff2 += err * err;
    ref2 += rv * rv;
    rep.max_abs_err = std::max(rep.max_abs_err, err);
    if (ratio > 1.0) ++rep.bad_elements;
    if (worst < 0 || ratio > rep.max_err_ratio) {
      rep.max_err_ratio = ratio;
      worst = static_cast<std::int64_t>(i);
    }
  }
  rep.rel_fro_err = std::sqrt(diff2 / ref2);
  return rep;
}

std::string index_text(std::int64_t i, std::int64_t cols) {
  return "(i,j)=(" + std::to_string(i / cols) + "," + std::to_string(i % cols) + ")";
}

void expect_same(ToleranceReport const& a, ToleranceReport const& b) {
  EXPECT_EQ(a.pass, b.pass);
  EXPECT_EQ(a.max_abs_err, b.max_abs_err);
  EXPECT_EQ(a.max_err_ratio, b.max_err_ratio);
  EXPECT_EQ(a.rel_fro_err, b.rel_fro_err);  // bit for bit: block sums in a fixed order
  EXPECT_EQ(a.bad_elements, b.bad_elements);
  EXPECT_EQ(a.reason, b.reason);
}

TEST(ParallelCompare, ToleranceEqualsSerialWithPlantedErrors) {
  std::int64_t const cols = 1531;
  std::size_t const n = static_cast<std::size_t>(cols) * 2111;  // ~3.2M, not a block multiple
  std::vector<float> r = random_normal(n, 11, 1);
  std::vector<float> s(n);
  std::vector<float> c = r;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> noise(-1.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = 4.0f + std::fabs(r[i]);
    c[i] = r[i] + noise(rng) * 1e-6f;  // within the bound
  }
  ToleranceModel const m = tolerance_model(Precision::kFP32, 4096, 8.0);
  // Over the bound in early, middle and late blocks; the two largest are equal, so the first
  // of them (in a later block than the first planted error) must be the one named.
  c[5] = r[5] + 0.01f;
  c[n / 2 + 3] = r[n / 2 + 3] + 0.5f;
  std::size_t const tie_a = n / 2 + 100000, tie_b = n - 7;
  c[tie_a] = r[tie_a] + 2.0f;
  r[tie_b] = r[tie_a];
  s[tie_b] = s[tie_a];
  c[tie_b] = c[tie_a];

  std::int64_t worst = -1, first_nonfinite = -1;
  ToleranceReport const spec = serial_tolerance(c, r, s, m, worst, first_nonfinite);
  ASSERT_EQ(first_nonfinite, -1);
  ToleranceReport const one = compare_with_tolerance(c, r, s, cols, m, 1);
  EXPECT_FALSE(one.pass);
  EXPECT_EQ(one.bad_elements, spec.bad_elements);
  EXPECT_EQ(one.max_abs_err, spec.max_abs_err);
  EXPECT_EQ(one.max_err_ratio, spec.max_err_ratio);
  EXPECT_NEAR(one.rel_fro_err, spec.rel_fro_err, 1e-12 * spec.rel_fro_err);
  EXPECT_NE(one.reason.find("at " + index_text(worst, cols) + ";"), std::string::npos)
      << one.reason << " vs worst " << worst;
  EXPECT_EQ(static_cast<std::size_t>(worst), tie_a);  // ties go to the first
  for (int threads : {2, 3, 8, 13, host_threads()}) {
    SCOPED_TRACE(threads);
    expect_same(compare_with_tolerance(c, r, s, cols, m, threads), one);
  }
  expect_same(compare_with_tolerance(c, r, s, cols, m), one);

  // Non-finite elements: the first one is named whichever thread saw it.
  c[n - 2] = std::nanf("");
  c[n / 3] = INFINITY;
  c[n / 3 + 1] = std::nanf("");
  ToleranceReport const spec2 = serial_tolerance(c, r, s, m, worst, first_nonfinite);
  ASSERT_EQ(first_nonfinite, static_cast<std::int64_t>(n / 3));
  ToleranceReport const one2 = compare_with_tolerance(c, r, s, cols, m, 1);
  EXPECT_EQ(one2.bad_elements, spec2.bad_elements);
  EXPECT_EQ(one2.reason.rfind("non-finite output (inf) at " + index_text(first_nonfinite, cols) +
                                  "; 3 non-finite elements, ",
                              0),
            0u)
      << one2.reason;
  for (int threads : {2, 5, 16}) expect_same(compare_with_tolerance(c, r, s, cols, m, threads), one2);
}

TEST(ParallelCompare, ExactEqualsSerial) {
  std::size_t const n = 1000003;
  std::vector<float> const r = random_small_integers(n, 3, 1, 2);
  std::vector<float> c = r;
  ExactReport const clean = compare_exact(c, r, 997, 7);
  EXPECT_EQ(clean.mismatches, 0);
  EXPECT_TRUE(clean.reason.empty());
  for (std::size_t i : {n - 1, n / 2 + 17, std::size_t{700001}}) c[i] += 1.0f;
  c[n - 3] = std::nanf("");
  ExactReport const one = compare_exact(c, r, 997, 1);
  EXPECT_EQ(one.mismatches, 4);
  EXPECT_NE(one.reason.find("first at " + index_text(static_cast<std::int64_t>(n / 2 + 17), 997)),
            std::string::npos)
      << one.reason;
  for (int threads : {2, 4, 9, host_threads()}) {
    ExactReport const x = compare_exact(c, r, 997, threads);
    EXPECT_EQ(x.mismatches, one.mismatches) << threads;
    EXPECT_EQ(x.reason, one.reason) << threads;
  }
}

TEST(ParallelHelpers, RangesCoverEachIndexOnce) {
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{5},
                            kMinItemsPerThread * 3 + 1, std::size_t{1} << 20}) {
    for (int threads : {1, 2, 7, 64}) {
      std::vector<int> hits(count, 0);
      std::mutex mu;
      std::size_t calls = 0;
      parallel_ranges(count, threads, [&](std::size_t b, std::size_t e) {
        EXPECT_LE(b, e);
        for (std::size_t i = b; i < e; ++i) ++hits[i];
        std::lock_guard lock(mu);
        ++calls;
      });
      for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(hits[i], 1) << count << " " << i;
      EXPECT_LE(calls, static_cast<std::size_t>(threads));
      if (count > 0) {
        EXPECT_LE(calls, std::max<std::size_t>(1, count / kMinItemsPerThread));
      }
    }
  }
}

TEST(ParallelHelpers, BytesEqualAndConversion) {
  std::vector<std::byte> a(5'000'011, std::byte{3});
  std::vector<std::byte> b = a;
  EXPECT_TRUE(bytes_equal(a, b, 8));
  b[b.size() - 1] = std::byte{4};
  EXPECT_FALSE(bytes_equal(a, b, 8));
  EXPECT_FALSE(bytes_equal(a, b, 1));
  b = a;
  b[0] = std::byte{0};
  EXPECT_FALSE(bytes_equal(a, b, 3));
  EXPECT_FALSE(bytes_equal(a, std::vector<std::byte>(10), 3));

  auto const values = random_normal(300'001, 9, 1);
  for (Precision p : kAllPrecisions) {
    auto const bytes = to_storage(values, p);
    std::vector<float> serial(values.size()), parallel(values.size());
    from_storage_into(bytes, p, serial, 1);
    from_storage_into(bytes, p, parallel, 6);
    EXPECT_EQ(serial, parallel) << to_string(p);
    EXPECT_EQ(from_storage(bytes, p), serial) << to_string(p);
  }
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
    ASSERT_EQ(bytes.size(), a.size() * static_cast<std::size_t>(input_bytes(p)));
    auto const back = from_storage(bytes, p);
    // Half an ulp of the storage format, relative; e4m3's normal range starts at 2^-6, below
    // which its spacing is the absolute 2^-9 (e5m2: 2^-14 and 2^-16).
    double const tol = p == Precision::kBF16   ? std::ldexp(1.0, -8)
                       : p == Precision::kFP16 ? std::ldexp(1.0, -11)
                       : a_is_e5m2(p)          ? std::ldexp(1.0, -3)
                       : is_fp8(p)             ? std::ldexp(1.0, -4)
                                               : 0.0;
    double const floor = a_is_e5m2(p) ? std::ldexp(1.0, -17)
                         : is_fp8(p)  ? std::ldexp(1.0, -10)
                                      : 1e-7;
    auto const abs_back = from_storage(abs_storage(bytes, p), p);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_LE(std::fabs(back[i] - a[i]), tol * std::fabs(a[i]) + floor) << to_string(p) << " " << a[i];
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

TEST(BoardWindow, MeansClocksAndPowerKeepsTheHottestAndEveryReason) {
  BoardWindow w;
  EXPECT_FALSE(w.figures().present());  // no reading: nothing to say
  SensorReading a;
  a.sm_clock_mhz = 1980;
  a.mem_clock_mhz = 3200;
  a.power_w = 400.0;
  a.temperature_c = 50;
  a.clock_events = 0x4;
  SensorReading b = a;
  b.sm_clock_mhz = 1350;
  b.power_w = 700.0;
  b.temperature_c = 58;
  b.clock_events = 0x20;
  w.add(a);
  w.add(b);
  w.add(b);
  PowerFigures const f = w.figures();
  EXPECT_EQ(w.readings(), 3);
  EXPECT_EQ(f.sm_clock_mhz, 1560);  // (1980 + 2 * 1350) / 3
  EXPECT_EQ(f.mem_clock_mhz, 3200);
  EXPECT_DOUBLE_EQ(f.power_w, 600.0);
  EXPECT_EQ(f.temperature_c, 58);
  EXPECT_EQ(f.clock_events, 0x24u);
  EXPECT_EQ(f.energy_mj, 0.0);
}

TEST(BoardSampler, ReadsWhileItLivesAndSplitsTheReadingsIntoWindows) {
  // A fake board whose clock is the number of the read: each window's mean lies between the
  // numbers of its first and last reading, and the windows follow each other.
  std::atomic<int> reads{0};
  std::atomic<bool> fail{false};
  BoardSampler sampler(
      [&]() -> std::optional<SensorReading> {
        int const n = ++reads;
        if (fail) return std::nullopt;
        SensorReading r;
        r.sm_clock_mhz = n;
        r.temperature_c = n;
        return r;
      },
      std::chrono::microseconds(200));
  auto wait_for_readings = [&](int n) {
    for (int i = 0; i < 5000 && sampler.readings() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  wait_for_readings(5);
  PowerFigures const first = sampler.next_window();
  ASSERT_TRUE(first.present());
  int const after_first = reads.load();
  wait_for_readings(5);
  PowerFigures const second = sampler.next_window();
  ASSERT_TRUE(second.present());
  EXPECT_LE(first.temperature_c, after_first);  // the hottest of the first window: its last
  EXPECT_GT(second.sm_clock_mhz, first.sm_clock_mhz);
  EXPECT_GE(second.temperature_c, after_first);
  // Failed reads add nothing: the window stays empty.
  fail = true;
  sampler.next_window();
  int const from = reads.load();
  for (int i = 0; i < 5000 && reads.load() < from + 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(sampler.readings(), 0);
  EXPECT_FALSE(sampler.next_window().present());
}

TEST(DeviceSensors, MissingLibraryIsUnavailableAndSaysWhy) {
  DeviceSensors const s("0000:00:00.0", "libgemmtune-no-such-library.so.1");
  EXPECT_FALSE(s.available());
  EXPECT_NE(s.why_not().find("libgemmtune-no-such-library.so.1"), std::string::npos) << s.why_not();
  EXPECT_FALSE(s.read().has_value());
}

TEST(DeviceSensors, LibraryWithoutTheEntryPointsIsUnavailable) {
  DeviceSensors const s("0000:00:00.0", "libm.so.6");
  EXPECT_FALSE(s.available());
  EXPECT_NE(s.why_not().find("entry points"), std::string::npos) << s.why_not();
  EXPECT_FALSE(s.read().has_value());
}

}  // namespace
}  // namespace gemmtune
