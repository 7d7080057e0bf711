// The runtime library on a machine without a usable GPU: calls come back with a status and a
// reason (never a crash or an exception), bad arguments are named before any device work, and
// a bad table is refused at load with its JSON path.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include <gemmtune/runtime.hpp>

namespace gemmtune {
namespace {

bool have_gpu() {
  int count = 0;
  bool const ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  return ok;
}

std::filesystem::path write_file(std::string const& name, std::string const& text) {
  auto const p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p;
}

constexpr char kTable[] = R"({"format": "gemmtune-table", "version": 1,
  "generated_at": "2025-01-01T00:00:00Z", "gemmtune_version": "0.1.0",
  "gpus": [{"id": 0, "name": "NVIDIA H200", "cc": "9.0", "sm_count": 132}],
  "entries": [{"gpu": 0, "precision": "fp32", "layout": "NN", "m": 64, "n": 64, "k": 64,
    "align": 16, "kernel": "naive:BM=32,BN=32", "time_ms": 0.01, "tflops": 0.05,
    "cublas_ms": null, "cublaslt_ms": null, "ratio_cublas": null, "ratio_cublaslt": null}],
  "defaults": []})";

TEST(RuntimeNoGpu, EveryPrecisionAndLayoutReportsNoDevice) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present; test_runtime_gpu covers this machine";
  Runtime rt(write_file("gemmtune_rt_table.json", kTable));
  EXPECT_EQ(rt.table_entries(), 1u);
  std::vector<float> host(64 * 64);  // never dereferenced: the runtime stops at the device
  for (Precision p : kAllPrecisions) {
    if (is_fp8(p)) continue;  // refused before the device is looked at: see below
    for (Layout l : kAllLayouts) {
      GemmInfo info;
      GemmStatus const s = rt.gemm(p, l, 64, 64, 64, 1.0f, host.data(), 64, host.data(), 64,
                                   0.0f, host.data(), 64, nullptr, &info);
      EXPECT_EQ(s, GemmStatus::kNoDevice);
      EXPECT_EQ(info.status, GemmStatus::kNoDevice);
      EXPECT_EQ(info.path, GemmPath::kNone);
      EXPECT_NE(info.detail.find("CUDA"), std::string::npos) << info.detail;
      EXPECT_EQ(info.align, 16);
    }
  }
  {
    // FP8 needs its scales: the call without them is an argument error, the call with them
    // goes on to the device (layout NT, 16-byte rows).
    GemmInfo info;
    EXPECT_EQ(rt.gemm(Precision::kE4M3, Layout::kNT, 64, 64, 64, 1.0f, host.data(), 64,
                      host.data(), 64, 0.0f, host.data(), 64, nullptr, &info),
              GemmStatus::kInvalidArgument);
    EXPECT_NE(info.detail.find("scale"), std::string::npos) << info.detail;
    Fp8Scales const scales{host.data(), host.data() + 4};
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(host.data()) % 16, 0u);
    EXPECT_EQ(rt.gemm(Precision::kE4M3, Layout::kNT, 64, 64, 64, 1.0f, host.data(), 64,
                      host.data(), 64, 0.0f, host.data(), 64, scales, nullptr, &info),
              GemmStatus::kNoDevice);
    EXPECT_EQ(info.path, GemmPath::kNone);
    EXPECT_EQ(info.align, 16);
    // Scales on another precision, and FP8 with A stored K×M of rows off 16 bytes (M = 40).
    EXPECT_EQ(rt.gemm(Precision::kBF16, Layout::kNT, 64, 64, 64, 1.0f, host.data(), 64,
                      host.data(), 64, 0.0f, host.data(), 64, scales, nullptr, &info),
              GemmStatus::kInvalidArgument);
    EXPECT_NE(info.detail.find("FP8 calls only"), std::string::npos) << info.detail;
    EXPECT_EQ(rt.gemm(Precision::kE4M3, Layout::kTN, 40, 64, 64, 1.0f, host.data(), 40,
                      host.data(), 64, 0.0f, host.data(), 64, scales, nullptr, &info),
              GemmStatus::kInvalidArgument);
    EXPECT_NE(info.detail.find("needs M a multiple of 16"), std::string::npos) << info.detail;
  }
  // No info pointer is fine too.
  EXPECT_EQ(rt.gemm(Precision::kFP32, Layout::kNN, 8, 8, 8, 1.0f, host.data(), 8, host.data(), 8,
                    0.0f, host.data(), 8),
            GemmStatus::kNoDevice);
}

TEST(RuntimeNoGpu, InvalidArgumentsComeFirstAndEmptyCIsOk) {
  Runtime rt;
  std::vector<float> host(64);
  GemmInfo info;
  EXPECT_EQ(rt.gemm(Precision::kFP32, Layout::kNN, 4, 4, 4, 1.0f, host.data(), 3, host.data(), 4,
                    0.0f, host.data(), 4, nullptr, &info),
            GemmStatus::kInvalidArgument);
  EXPECT_NE(info.detail.find("lda = 3"), std::string::npos) << info.detail;
  EXPECT_EQ(rt.gemm(Precision::kFP16, Layout::kTT, 4, 4, 4, 1.0f, nullptr, 4, host.data(), 4,
                    0.0f, host.data(), 4, nullptr, &info),
            GemmStatus::kInvalidArgument);
  EXPECT_EQ(rt.gemm(Precision::kBF16, Layout::kNT, 0, 4, 4, 1.0f, nullptr, 4, nullptr, 4, 0.0f,
                    nullptr, 4, nullptr, &info),
            GemmStatus::kOk);
  EXPECT_EQ(info.path, GemmPath::kNone);
}

TEST(RuntimeNoGpu, BadTablesAreRefusedAtLoadWithTheirPath) {
  std::string bad = kTable;
  bad.replace(bad.find("\"m\": 64"), 7, "\"m\": 0");
  try {
    Runtime rt(write_file("gemmtune_rt_bad.json", bad));
    FAIL() << "expected an exception";
  } catch (std::runtime_error const& e) {
    EXPECT_NE(std::string(e.what()).find("entries[0].m"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Runtime(std::filesystem::path("/nonexistent/gemmtune/table.json")), std::runtime_error);
}


TEST(RuntimeNoGpu, VendorPicksLoadAndStopAtTheDevice) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present; test_runtime_gpu covers this machine";
  std::string table = kTable;
  table.replace(table.find("\"kernel\": \"naive:BM=32,BN=32\""),
                std::string("\"kernel\": \"naive:BM=32,BN=32\"").size(),
                "\"kernel\": \"cublaslt:ALGO=66,TILE=20,STAGES=35,SPLITK=1,RED=0,SWIZZLE=0,"
                "CUSTOM=0,INNER=0,CLUSTER=0,COMPUTE=0\", \"vendor\": true, "
                "\"cublas_version\": \"13.1.0\"");
  Runtime rt(write_file("gemmtune_rt_vendor_table.json", table));
  EXPECT_EQ(rt.table_entries(), 1u);
  std::vector<float> host(64 * 64);
  GemmInfo info;
  EXPECT_EQ(rt.gemm(Precision::kFP32, Layout::kNN, 64, 64, 64, 1.0f, host.data(), 64, host.data(),
                    64, 0.0f, host.data(), 64, nullptr, &info),
            GemmStatus::kNoDevice);
  EXPECT_EQ(info.path, GemmPath::kNone);
  EXPECT_EQ(to_string(GemmPath::kCublasLt), "cublaslt");
  // A vendor pick without its cuBLAS version is refused at load, with its path.
  std::string unversioned = table;
  unversioned.replace(unversioned.find(", \"cublas_version\": \"13.1.0\""),
                      std::string(", \"cublas_version\": \"13.1.0\"").size(), "");
  try {
    Runtime bad(write_file("gemmtune_rt_vendor_bad.json", unversioned));
    FAIL() << "expected an exception";
  } catch (std::runtime_error const& e) {
    EXPECT_NE(std::string(e.what()).find("entries[0].cublas_version"), std::string::npos)
        << e.what();
  }
}

TEST(RuntimeNoGpu, DescribeSaysWhatIsLoaded) {
  RuntimeOptions o;
  o.cubin_cache_dir = (std::filesystem::temp_directory_path() / "gemmtune_rt_cubins").string();
  o.use_tuned = false;
  Runtime rt(write_file("gemmtune_rt_table2.json", kTable), o);
  std::string const d = rt.describe();
  EXPECT_NE(d.find("1 entries"), std::string::npos) << d;
  EXPECT_NE(d.find(o.cubin_cache_dir), std::string::npos) << d;
  EXPECT_NE(d.find("tuned kernels off"), std::string::npos) << d;
  EXPECT_NE(Runtime().describe().find("no table"), std::string::npos);
  EXPECT_EQ(to_string(GemmStatus::kNoDevice), "no_device");
  EXPECT_EQ(to_string(GemmPath::kCublas), "cublas");
}

}  // namespace
}  // namespace gemmtune
