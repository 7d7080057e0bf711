// A search that needs neither NVRTC nor a GPU but stores to the real SQLite cache: a test
// family of 40 × 25 configs, an immediate compile function, a scripted GPU that takes `eval_ms`
// per candidate, and a store wrapper that appends "stored <id>" to a journal once a trial is
// committed. The evaluator appends "eval <id>" before it starts, so a test that SIGKILLs the
// process can tell which trials were finished and which were redone after a resume.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "src/core/trial_store.hpp"
#include "src/kernels/family.hpp"
#include "tuner/search/gpu_evaluator.hpp"
#include "tuner/search/search_session.hpp"

namespace gemmtune::reliability {

/// X in 0..39, Y in 0..24, one launch; X % 7 == 3 gives a wrong result (failures are stored
/// and resumed like successes), the rest time 1 + |X - 20| / 10 + Y / 100 ms.
class ScriptedFamily : public Family {
 public:
  std::string_view name() const override { return "scripted"; }
  std::string_view description() const override { return "scripted test family"; }
  std::string_view template_file() const override { return "common/gemm_args.cuh"; }
  int min_arch() const override { return 70; }
  bool supports(Precision p) const override { return p == Precision::kFP32; }
  std::vector<ParamSpec> params() const override {
    std::vector<std::int64_t> xs, ys;
    for (int i = 0; i < 40; ++i) xs.push_back(i);
    for (int i = 0; i < 25; ++i) ys.push_back(i);
    return {{"X", xs, "x"}, {"Y", ys, "y"}};
  }
  std::vector<Constraint> constraints() const override { return {}; }
  CompileRequest compile_request(KernelConfig const& cfg, Problem const&,
                                 std::string const& arch) const override {
    CompileRequest r;
    r.source_name = "scripted";
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
  static constexpr int kConfigs = 40 * 25;
};

/// Compiles nothing: every request succeeds at once with a placeholder cubin path.
inline CompileFn immediate_compile() {
  return [](CompileRequest) {
    std::promise<CompileResult> p;
    CompileResult r;
    r.ok = true;
    r.cubin = "cubin";
    r.cubin_path = "/nonexistent/scripted.cubin";
    r.lowered_names = {"k_lowered"};
    r.resources = {KernelResources{"k_lowered", 32, 0, 0, 0, 0}};
    r.compile_ms = 1;
    p.set_value(r);
    return p.get_future();
  };
}

/// Appends one line with a single write(2), so a SIGKILL leaves whole lines only.
inline void append_line(int fd, std::string const& line) {
  if (fd < 0) return;
  std::string const text = line + "\n";
  (void)!::write(fd, text.data(), text.size());
}

inline int open_journal(std::string const& path) {
  return path.empty() ? -1 : ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

class ScriptedGpu : public GpuEvaluator {
 public:
  ScriptedGpu(double eval_ms, int journal_fd) : eval_ms_(eval_ms), fd_(journal_fd) {}
  DeviceReport device() override {
    DeviceReport d;
    d.present = true;
    d.gpu = {"Scripted GPU", 9, 0, 132};
    d.limits = *arch_limits("sm_90");
    d.driver = "13000";
    d.cuda_runtime = "13000";
    d.cublas = "13.1.0";
    return d;
  }
  EvalResult evaluate(EvalJob const& job, double) override {
    append_line(fd_, "eval " + job.kernel_id);
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(eval_ms_));
    KernelConfig const cfg = parse_kernel_id(job.kernel_id);
    EvalResult r;
    std::int64_t const x = cfg.at("X"), y = cfg.at("Y");
    if (x % 7 == 3) {
      r.disposition = Disposition::kWrongResult;
      r.reason = "max |C-R|/bound = 12";
      r.max_err_ratio = 12;
      return r;
    }
    r.disposition = Disposition::kOk;
    r.median_ms = 1.0 + static_cast<double>(x > 20 ? x - 20 : 20 - x) / 10.0 +
                  static_cast<double>(y) / 100.0;
    r.min_ms = r.median_ms;
    r.iterations = 10;
    r.repeats = 5;
    return r;
  }
  BaselineResult baseline(BaselineJob const&, double) override {
    BaselineResult b;
    b.ok = true;
    b.cublas_ms = 2.0;
    b.cublaslt_ms = 1.9;
    return b;
  }

 private:
  double eval_ms_;
  int fd_;
};

/// Forwards to a store and journals every committed trial.
class JournalingStore : public TrialStore {
 public:
  JournalingStore(TrialStore& inner, int journal_fd) : inner_(inner), fd_(journal_fd) {}
  std::int64_t begin_search(std::string const& a) override { return inner_.begin_search(a); }
  void finish_search(std::int64_t id, std::string const& p) override { inner_.finish_search(id, p); }
  std::int64_t record_trial(Trial const& t) override {
    std::int64_t const id = inner_.record_trial(t);
    append_line(fd_, "stored " + t.config.id());
    return id;
  }
  std::optional<Trial> find_trial(GpuIdentity const& g, Problem const& p, KernelConfig const& c,
                                  Provenance const& v) override {
    return inner_.find_trial(g, p, c, v);
  }
  std::vector<Trial> trials_for(GpuIdentity const& g, Problem const& p) override {
    return inner_.trials_for(g, p);
  }
  std::vector<Problem> tuned_problems(GpuIdentity const& g, Precision p) override {
    return inner_.tuned_problems(g, p);
  }
  void record_baseline(GpuIdentity const& g, Problem const& p, BaselineResult const& b,
                       Provenance const& v) override {
    inner_.record_baseline(g, p, b, v);
  }
  std::optional<BaselineResult> find_baseline(GpuIdentity const& g, Problem const& p) override {
    return inner_.find_baseline(g, p);
  }
  void record_finished_problem(std::int64_t id, GpuIdentity const& g, Problem const& p,
                               std::string const& s) override {
    inner_.record_finished_problem(id, g, p, s);
  }
  std::optional<std::int64_t> finished_by(GpuIdentity const& g, Problem const& p,
                                          std::string const& s) override {
    return inner_.finished_by(g, p, s);
  }

 private:
  TrialStore& inner_;
  int fd_;
};

}  // namespace gemmtune::reliability
