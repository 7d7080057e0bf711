// Checks of GEMM arguments (FP8's scales and layout included) and the alignment class of a call.
#include "src/runtime/gemm_call.hpp"

#include <algorithm>
#include <climits>

namespace gemmtune {
namespace {

std::string too_small(char const* what, std::int64_t value, char const* minimum_name,
                      std::int64_t minimum) {
  return std::string(what) + " = " + std::to_string(value) + " is less than " + minimum_name +
         " = " + std::to_string(minimum);
}

/// FP8's own rules, after the general ones: the problem its precision can take, whole 16-byte
/// rows and bases for A, B and C, and the two scales.
std::string fp8_reason(GemmCall const& call) {
  std::string const name(to_string(call.precision));
  std::string const what =
      row_scaled(call.precision)
          ? "a vector of scales per operand in device memory (scale_a: M floats for the rows of "
            "op(A), scale_b: N for the columns of op(B))"
      : block_scaled(call.precision)
          ? "block scales per operand in device memory (scale_a: one float per row of op(A) and "
            "128 of K, scale_b: one per 128×128 block of op(B))"
          : "one scale per operand in device memory (scale_a and scale_b)";
  if (call.scale_a == nullptr || call.scale_b == nullptr) {
    return name + " calls need " + what + ", one of which is null";
  }
  auto const off16 = [](void const* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 != 0; };
  if (off16(call.scale_a) || off16(call.scale_b)) {
    return name + " scales must each start 16-byte aligned (cuBLASLt's FP8 matmul refuses "
                  "others)";
  }
  Problem const p = call_problem(call);
  if (std::string why = p.unsupported_reason(); !why.empty()) return why;
  if (p.align < 16) {
    return name + " needs A, B and C on 16-byte boundaries with leading dimensions of whole "
                  "16-byte rows; this call's alignment class is " + std::to_string(p.align) +
           " bytes";
  }
  return {};
}

}  // namespace

std::string invalid_reason(GemmCall const& call) {
  if (!is_fp8(call.precision) && (call.scale_a != nullptr || call.scale_b != nullptr)) {
    return "scales apply to FP8 calls only, not " + std::string(to_string(call.precision));
  }
  struct Size {
    char const* name;
    std::int64_t value;
  };
  for (Size const s : {Size{"M", call.m}, Size{"N", call.n}, Size{"K", call.k}, Size{"lda", call.lda},
                       Size{"ldb", call.ldb}, Size{"ldc", call.ldc}}) {
    if (s.value < 0 || s.value > INT_MAX) {
      return std::string(s.name) + " = " + std::to_string(s.value) + " is out of range (expected 0 … " +
             std::to_string(INT_MAX) + ")";
    }
  }
  // Leading dimensions cover one stored row, and are at least 1 as in BLAS.
  bool const ta = a_transposed(call.layout), tb = b_transposed(call.layout);
  std::int64_t const min_lda = std::max<std::int64_t>(1, ta ? call.m : call.k);
  std::int64_t const min_ldb = std::max<std::int64_t>(1, tb ? call.k : call.n);
  std::int64_t const min_ldc = std::max<std::int64_t>(1, call.n);
  if (call.lda < min_lda) return too_small("lda", call.lda, ta ? "max(1, M)" : "max(1, K)", min_lda);
  if (call.ldb < min_ldb) return too_small("ldb", call.ldb, tb ? "max(1, K)" : "max(1, N)", min_ldb);
  if (call.ldc < min_ldc) return too_small("ldc", call.ldc, "max(1, N)", min_ldc);

  if (call.m == 0 || call.n == 0) return {};
  if (call.c == nullptr) return "C is null";
  if (call.k > 0 && (call.a == nullptr || call.b == nullptr)) return "A or B is null";
  int const e = input_bytes(call.precision), ec = output_bytes(call.precision);
  auto const misaligned = [](void const* p, int bytes) {
    return p != nullptr &&
           reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(bytes) != 0;
  };
  if (misaligned(call.a, e) || misaligned(call.b, e) || misaligned(call.c, ec)) {
    return "A, B and C must be aligned to the " + std::to_string(e) + "-byte " +
           std::string(to_string(call.precision)) + " element";
  }
  if (is_fp8(call.precision)) return fp8_reason(call);
  return {};
}

int call_alignment(GemmCall const& call) {
  auto const address = [](void const* p) {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  };
  auto const bytes = static_cast<std::uint64_t>(input_bytes(call.precision));
  auto const c_bytes = static_cast<std::uint64_t>(output_bytes(call.precision));
  int a = 16;
  for (std::uint64_t const v :
       {address(call.a), address(call.b), address(call.c), static_cast<std::uint64_t>(call.lda) * bytes,
        static_cast<std::uint64_t>(call.ldb) * bytes, static_cast<std::uint64_t>(call.ldc) * c_bytes}) {
    a = std::min(a, alignment_class(v));
  }
  return a;
}

Problem call_problem(GemmCall const& call) {
  Problem p;
  p.m = call.m;
  p.n = call.n;
  p.k = call.k;
  p.precision = call.precision;
  p.layout = call.layout;
  p.align = call_alignment(call);
  return p;
}

}  // namespace gemmtune
