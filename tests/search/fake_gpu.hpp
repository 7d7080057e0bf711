// A test kernel family, a scripted GPU evaluator and an immediate compile function, so the
// search loop runs without NVRTC or a GPU. Time of a config: 1 + |X - 5| + Y/10 ms; X = 3 fails
// to compile, X = 7 spills, X = 8 gives a wrong result, X = 9 times out.
#pragma once

#include <future>
#include <string>

#include "src/kernels/family.hpp"
#include "tuner/search/gpu_evaluator.hpp"
#include "tuner/search/search_session.hpp"

namespace gemmtune {

class TestFamily : public Family {
 public:
  std::string_view name() const override { return "testfam"; }
  std::string_view description() const override { return "test family"; }
  std::string_view template_file() const override { return "common/gemm_args.cuh"; }
  int min_arch() const override { return 70; }
  bool supports(Precision p) const override { return p == Precision::kFP32; }
  std::vector<ParamSpec> params() const override {
    return {{"X", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "x"}, {"Y", {1, 2, 64}, "y"}};
  }
  std::vector<Constraint> constraints() const override {
    return {{"Y small", [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
               return c.at("Y") > 2 ? std::string("Y small: Y=64 > 2") : std::string();
             }}};
  }
  CompileRequest compile_request(KernelConfig const& cfg, Problem const&,
                                 std::string const& arch) const override {
    CompileRequest r;
    r.source_name = "test";
    r.source = cfg.id();
    r.name_expressions = {"k"};
    r.arch = arch;
    return r;
  }
  LaunchPlan launch_plan(KernelConfig const&, Problem const&) const override {
    LaunchPlan p;
    p.launches.push_back({"k", "", {1, 1, 1}, {32, 1, 1}, 0});
    return p;
  }
  int smem_bytes(KernelConfig const&, Problem const&) const override { return 0; }
  int threads(KernelConfig const&) const override { return 32; }
};

inline CompileFn fake_compile(int* calls = nullptr) {
  return [calls](CompileRequest req) {
    if (calls) ++*calls;
    std::promise<CompileResult> p;
    CompileResult r;
    KernelConfig const cfg = parse_kernel_id(req.source);
    r.ok = cfg.at("X") != 3;
    r.log = r.ok ? "" : "error: expected a ';'";
    r.cubin = "cubin";
    r.cubin_path = "/nonexistent/fake.cubin";
    r.lowered_names = {"k_lowered"};
    KernelResources res;
    res.registers = 40;
    res.spill_stores = cfg.at("X") == 7 ? 16 : 0;
    r.resources = {res};
    r.compile_ms = 5;
    p.set_value(r);
    return p.get_future();
  };
}

class ScriptedGpu : public GpuEvaluator {
 public:
  DeviceReport device() override {
    DeviceReport d;
    d.present = true;
    d.gpu = {"Test GPU", 9, 0, 4};
    d.limits = *arch_limits("sm_90");
    d.driver = "13000";
    d.cuda_runtime = "13000";
    d.cublas = "13.1.0";
    return d;
  }
  EvalResult evaluate(EvalJob const& job, double) override {
    ++evals;
    KernelConfig const cfg = parse_kernel_id(job.kernel_id);
    EvalResult r;
    if (cfg.at("X") == 8) {
      r.disposition = Disposition::kWrongResult;
      r.reason = "max |C-R|/bound = 12";
      return r;
    }
    if (cfg.at("X") == 9) {
      r.disposition = Disposition::kTimeout;
      r.reason = "killed";
      return r;
    }
    r.disposition = Disposition::kOk;
    double const x = static_cast<double>(cfg.at("X"));
    r.median_ms = 1.0 + (x > 5 ? x - 5 : 5 - x) + static_cast<double>(cfg.at("Y")) / 10.0;
    r.min_ms = r.median_ms;
    return r;
  }
  BaselineResult baseline(BaselineJob const&, double) override {
    BaselineResult b;
    b.ok = true;
    b.cublas_ms = 2.0;
    b.cublaslt_ms = 1.9;
    return b;
  }
  int evals = 0;
};

}  // namespace gemmtune
