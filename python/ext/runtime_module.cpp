// gemmtune._runtime: the runtime library (src/runtime/include/gemmtune/runtime.hpp) for Python,
// with no torch in it. It takes raw device pointers, leading dimensions and a stream handle; the
// Python layer (gemmtune/_operands.py) turns tensors into those. It also reads any DLPack array's
// pointer, shape, strides, dtype and device, so arrays of libraries without a fast path of
// their own need no torch either. Nothing here allocates device memory or synchronises.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "gemmtune/runtime.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// One Runtime per Python object; gemm() is thread-safe, so the GIL is released around it (the
/// first call of a kernel compiles it with NVRTC, which takes seconds).
class PyRuntime {
 public:
  PyRuntime(std::optional<std::string> const& table, std::optional<std::string> const& cubin_cache,
            bool use_tuned) {
    gemmtune::RuntimeOptions options;
    options.cubin_cache_dir = cubin_cache.value_or("");
    options.use_tuned = use_tuned;
    runtime_ = table ? std::make_unique<gemmtune::Runtime>(std::filesystem::path(*table), options)
                     : std::make_unique<gemmtune::Runtime>(options);
  }

  /// None when the call was queued and no info was asked for; else (status, path, rule, kernel,
  /// align, detail), so a failure carries the runtime's own words to the exception.
  /// FP8 precisions (and any call given a scale) take the overload with the per-tensor scales,
  /// so the runtime itself says what is wrong with a missing or misplaced one.
  nb::object gemm(int precision, int layout, std::int64_t m, std::int64_t n, std::int64_t k,
                  float alpha, std::uintptr_t a, std::int64_t lda, std::uintptr_t b,
                  std::int64_t ldb, float beta, std::uintptr_t c, std::int64_t ldc,
                  std::uintptr_t stream, bool want_info, std::uintptr_t scale_a,
                  std::uintptr_t scale_b) {
    gemmtune::GemmInfo info;
    gemmtune::GemmStatus status;
    auto const p = static_cast<gemmtune::Precision>(precision);
    {
      nb::gil_scoped_release release;
      if (scale_a != 0 || scale_b != 0 || gemmtune::is_fp8(p)) {
        gemmtune::Fp8Scales const scales{reinterpret_cast<float const*>(scale_a),
                                         reinterpret_cast<float const*>(scale_b)};
        status = runtime_->gemm(p, static_cast<gemmtune::Layout>(layout), m, n, k, alpha,
                                reinterpret_cast<void const*>(a), lda,
                                reinterpret_cast<void const*>(b), ldb, beta,
                                reinterpret_cast<void*>(c), ldc, scales,
                                reinterpret_cast<CUstream_st*>(stream), &info);
      } else {
        status = runtime_->gemm(p, static_cast<gemmtune::Layout>(layout), m, n, k, alpha,
                                reinterpret_cast<void const*>(a), lda,
                                reinterpret_cast<void const*>(b), ldb, beta,
                                reinterpret_cast<void*>(c), ldc,
                                reinterpret_cast<CUstream_st*>(stream), &info);
      }
    }
    if (status == gemmtune::GemmStatus::kOk && !want_info) return nb::none();
    return nb::make_tuple(std::string(gemmtune::to_string(status)),
                          std::string(gemmtune::to_string(info.path)), info.rule, info.kernel,
                          info.align, info.detail);
  }

  std::size_t table_entries() const { return runtime_->table_entries(); }
  std::string describe() const { return runtime_->describe(); }

 private:
  std::unique_ptr<gemmtune::Runtime> runtime_;
};

/// The DLPack dtype's name as numpy and torch spell it ("" for one no precision takes).
std::string dtype_name(nb::dlpack::dtype t) {
  if (t.lanes != 1) return "";
  auto const code = static_cast<nb::dlpack::dtype_code>(t.code);
  if (code == nb::dlpack::dtype_code::Float && t.bits == 32) return "float32";
  if (code == nb::dlpack::dtype_code::Float && t.bits == 16) return "float16";
  if (code == nb::dlpack::dtype_code::Float && t.bits == 64) return "float64";
  if (code == nb::dlpack::dtype_code::Bfloat && t.bits == 16) return "bfloat16";
  std::string const kind = code == nb::dlpack::dtype_code::Int      ? "int"
                           : code == nb::dlpack::dtype_code::UInt   ? "uint"
                           : code == nb::dlpack::dtype_code::Float  ? "float"
                           : code == nb::dlpack::dtype_code::Bfloat ? "bfloat"
                                                                    : "code" + std::to_string(t.code) + "_";
  return kind + std::to_string(t.bits);
}

/// (pointer, shape, strides in elements, dtype name, device kind, device id) of a DLPack array.
nb::tuple describe_dlpack(nb::ndarray<> array) {
  nb::list shape, strides;
  for (std::size_t i = 0; i < array.ndim(); ++i) {
    shape.append(array.shape(i));
    strides.append(array.stride(i));
  }
  int const device = array.device_type();
  std::string const kind = device == nb::device::cuda::value         ? "cuda"
                           : device == nb::device::cpu::value        ? "cpu"
                           : device == nb::device::cuda_host::value  ? "cuda_host"
                           : device == nb::device::cuda_managed::value ? "cuda_managed"
                                                                     : "device" + std::to_string(device);
  return nb::make_tuple(reinterpret_cast<std::uintptr_t>(array.data()), nb::tuple(shape),
                        nb::tuple(strides), dtype_name(array.dtype()), kind, array.device_id());
}

}  // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "gemmtune's runtime library: tuned GEMMs from a tuning table, cuBLAS otherwise";

  // The names the library itself uses, so the Python layer never spells them on its own.
  nb::dict precisions, layouts;
  for (gemmtune::Precision p : gemmtune::kAllPrecisions) {
    precisions[nb::str(std::string(gemmtune::to_string(p)).c_str())] = static_cast<int>(p);
  }
  for (gemmtune::Layout l : gemmtune::kAllLayouts) {
    layouts[nb::str(std::string(gemmtune::to_string(l)).c_str())] = static_cast<int>(l);
  }
  m.attr("PRECISIONS") = precisions;
  m.attr("LAYOUTS") = layouts;

  nb::class_<PyRuntime>(m, "Runtime")
      .def(nb::init<std::optional<std::string> const&, std::optional<std::string> const&, bool>(),
           "table"_a.none() = nb::none(), "cubin_cache"_a.none() = nb::none(),
           "use_tuned"_a = true,
           "Loads a tuning table (None: every call uses cuBLAS). Raises RuntimeError naming the "
           "file and the first invalid entry when the table cannot be used.")
      .def("gemm", &PyRuntime::gemm, "precision"_a, "layout"_a, "m"_a, "n"_a, "k"_a, "alpha"_a,
           "a"_a, "lda"_a, "b"_a, "ldb"_a, "beta"_a, "c"_a, "ldc"_a, "stream"_a, "want_info"_a,
           "scale_a"_a = 0, "scale_b"_a = 0,
           "Runtime::gemm on raw device pointers (row-major, leading dimensions in elements; "
           "FP8: the device pointers of the two per-tensor scales). None when queued and "
           "want_info is false; else (status, path, rule, kernel, align, detail).")
      .def_prop_ro("table_entries", &PyRuntime::table_entries)
      .def("describe", &PyRuntime::describe);

  m.def("describe_dlpack", &describe_dlpack, "array"_a,
        "(pointer, shape, strides in elements, dtype, device kind, device id) of any array that "
        "speaks DLPack.");
}
