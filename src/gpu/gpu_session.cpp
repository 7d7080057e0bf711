// GpuSession: the worker's GPU state and the evaluate / baseline sequences of DESIGN.md §5.
// Candidate failures become Dispositions; a sticky CUDA error poisons the session, after which
// every call answers kFault without touching the GPU, so the worker replies and exits.
#include "src/gpu/gpu_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "src/core/error.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/gpu/candidate_runner.hpp"
#include "src/gpu/cublas_handle.hpp"
#include "src/gpu/cublaslt_autotune.hpp"
#include "src/gpu/device_probe.hpp"
#include "src/gpu/device_sensors.hpp"
#include "src/gpu/host_inputs.hpp"
#include "src/gpu/host_parallel.hpp"
#include "src/gpu/problem_data.hpp"
#include "src/gpu/timing_protocol.hpp"
#include "src/gpu/verifier.hpp"
#include "src/launch/cuda_errors.hpp"

namespace gemmtune {
namespace {

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", ms);
  return buf;
}

void check_shape(Problem const& p) {
  for (std::int64_t v : {p.m, p.n, p.k}) {
    if (v < 1 || v > kMaxDim) {
      throw Error("problem " + p.shape() + " out of range (each of M, N, K in 1 … " +
                  std::to_string(kMaxDim) + ")");
    }
  }
}

/// The exact pass applies where small integers and their sums are exact in the input and
/// output types: fp32, and tf32 (integers ≤ 2 are exact in TF32's 10-bit mantissa).
bool exact_pass_applies(Precision p) { return p == Precision::kFP32 || p == Precision::kTF32; }

/// The vendor candidate a job names (no cubin, a cublas or cublaslt id), or nullopt.
std::optional<KernelConfig> vendor_config(EvalJob const& job) {
  if (!job.cubin_path.empty()) return std::nullopt;
  try {
    KernelConfig c = parse_kernel_id(job.kernel_id);
    if (is_vendor(c)) return c;
  } catch (Error const&) {
  }
  return std::nullopt;
}

}  // namespace

struct GpuSession::Impl {
  DeviceReport report;
  cudaStream_t stream = nullptr;
  std::unique_ptr<CublasHandle> cublas;
  std::unique_ptr<CublasLtAutotuner> lt;
  std::unique_ptr<DeviceSensors> sensors;  // the board's sensors, when NVML is there
  CandidateRunner runner;
  std::unique_ptr<ProblemData> data;
  DeviceBuffer workspace;
  DeviceBuffer counters;  // split-K tile counters: zeroed per candidate, left zero by its runs
  LaunchPlan const* plan = nullptr;  // the plan being evaluated (for zero_workspace)
  /// Which code run_plan() launches: the loaded candidate, or a vendor call under evaluation.
  enum class Vendor { kNone, kCublas, kCublasLt } vendor = Vendor::kNone;
  bool poisoned = false;
  int poison_error = 0;
  int const threads = host_threads();

  /// Input sets the current evaluation has launched the candidate on, with the words that
  /// name the set in a complaint; `inputs_checked` once their A and B have been compared.
  std::vector<std::pair<InputSet*, char const*>> used_sets;
  bool inputs_checked = false;

  std::vector<PhaseTime> phases;
  std::chrono::steady_clock::time_point phase_start;
  /// Closes the step that began at the previous mark.
  void mark(std::string name) {
    auto const now = std::chrono::steady_clock::now();
    phases.push_back({std::move(name),
                      std::chrono::duration<double, std::milli>(now - phase_start).count()});
    phase_start = now;
  }

  ~Impl() {
    data.reset();
    workspace = DeviceBuffer{};
    counters = DeviceBuffer{};
    lt.reset();
    cublas.reset();
    if (stream != nullptr) (void)cudaStreamDestroy(stream);
  }

  std::string poisoned_reason() const {
    return "CUDA context lost to an earlier fault (" + cuda_error_text(poison_error) +
           "); the worker must restart";
  }

  void poison(int cuda_error) {
    poisoned = true;
    poison_error = cuda_error;
  }

  std::int64_t rotate_bytes(TimingSpec const& t) const {
    return t.rotate_bytes > 0 ? t.rotate_bytes : 2 * report.limits.l2_bytes;
  }

  ProblemData& data_for(Problem const& p, std::uint64_t seed) {
    check_shape(p);
    if (!data || !data->holds(p, seed)) {
      data.reset();  // release the previous problem's gigabytes first
      data = std::make_unique<ProblemData>(p, seed, stream);
    }
    return *data;
  }

  /// Records a failed launch: sticky → kFault (and poison), otherwise kLaunchError.
  void fail_launch(EvalResult& r, LaunchStatus const& s, std::string const& phase) {
    r.cuda_error = s.cuda_error;
    r.reason = phase + s.error;
    if (s.cuda_error != 0 && is_sticky(s.cuda_error)) {
      r.disposition = Disposition::kFault;
      poison(s.cuda_error);
    } else {
      r.disposition = Disposition::kLaunchError;
    }
  }

  void wrong(EvalResult& r, std::string const& phase, std::string const& why) {
    r.disposition = Disposition::kWrongResult;
    r.reason = phase + why;
  }

  void* workspace_ptr() { return workspace.empty() ? nullptr : workspace.data(); }
  unsigned* counters_ptr() {
    return counters.empty() ? nullptr : static_cast<unsigned*>(counters.data());
  }

  /// Sizes `buffer` for `bytes` (none for 0); a failure that leaves the context usable is the
  /// candidate's launch error, a sticky one is thrown.
  bool size_buffer(EvalResult& r, DeviceBuffer& buffer, std::int64_t bytes, char const* what) {
    if (bytes < 0) {
      fail_launch(r, {0, std::string("negative ") + what + " " + std::to_string(bytes)}, "");
      return false;
    }
    auto const want = static_cast<std::size_t>(bytes);
    if (want == 0) {
      buffer = DeviceBuffer{};
    } else if (buffer.bytes() != want) {
      buffer = DeviceBuffer{};
      try {
        buffer = DeviceBuffer(want);
      } catch (CudaFailure const& f) {
        if (is_sticky(f.cuda_error())) throw;
        (void)cudaGetLastError();
        fail_launch(r, {f.cuda_error(), std::string(what) + ": " + f.what()}, "");
        return false;
      }
    }
    return true;
  }

  /// Whether every split-K counter is back at zero (a plan's runs must leave them so, or the
  /// next run on a shared counter buffer would count from the wrong start).
  bool counters_clear() {
    if (counters.empty()) return true;
    std::vector<unsigned> host(counters.bytes() / sizeof(unsigned));
    download(host.data(), counters.data(), host.size() * sizeof(unsigned), stream);
    return std::all_of(host.begin(), host.end(), [](unsigned v) { return v == 0; });
  }

  LaunchStatus run_plan(GemmArgs const& args) {
    if (vendor == Vendor::kCublas) {
      cublasStatus_t const st =
          gemm_row_major(cublas->get(), data->problem(), baseline_contract(data->problem().precision),
                         args.A, args.B, args.C, args.alpha, args.beta);
      if (st != CUBLAS_STATUS_SUCCESS) return {0, "cublasGemmEx: " + cublas_status_text(st)};
      return {};
    }
    if (vendor == Vendor::kCublasLt) return lt->launch(args.A, args.B, args.C, args.alpha, args.beta);
    if (plan->zero_workspace && !workspace.empty()) {
      cudaError_t const e = cudaMemsetAsync(workspace.data(), 0, workspace.bytes(), stream);
      if (e != cudaSuccess) return {static_cast<int>(e), "workspace memset: " + cuda_error_text(e)};
    }
    return runner.launch(args, stream);
  }

  /// Compares A and B of every set this evaluation launched on with their host copies and
  /// restores any the kernel changed (or every later candidate of this problem would fail on
  /// bad inputs). Returns a complaint naming the first modified input, or empty.
  std::string check_and_restore_inputs() {
    inputs_checked = true;
    std::string complaint;
    PinnedBuffer& staging = data->staging();
    for (auto const& [set, label] : used_sets) {
      for (auto const& [buffer, host, name] :
           {std::tuple<DeviceBuffer*, std::vector<std::byte>*, char const*>{&set->a, &set->host_a, "A"},
            {&set->b, &set->host_b, "B"}}) {
        std::span<std::byte> const now = staging.first(host->size());
        download(now.data(), buffer->data(), now.size(), stream);
        if (!bytes_equal(now, *host, threads)) {
          upload(buffer->data(), host->data(), host->size(), stream);
          if (complaint.empty()) {
            complaint = std::string("input ") + name + label + " was modified by the kernel";
          }
        }
      }
    }
    return complaint;
  }

  /// One poisoned, guarded, verified run on `set`; with `check_inputs`, A and B of every set
  /// used so far are compared with their host copies too. Returns false with `r` filled on
  /// failure.
  bool verified_run(EvalResult& r, InputSet& set, char const* set_label, float alpha, float beta,
                    bool tolerance, std::string const& phase, bool check_inputs) {
    Problem const& p = data->problem();
    DeviceBuffer& c = data->c();
    // The exact pass's reasons carry their own "exact pass:" prefix; its steps need a name.
    std::string const step = phase.empty() ? "exact pass: " : phase;
    if (std::find_if(used_sets.begin(), used_sets.end(),
                     [&](auto const& u) { return u.first == &set; }) == used_sets.end()) {
      used_sets.emplace_back(&set, set_label);
    }
    set.a.fill_guards(stream);
    set.b.fill_guards(stream);
    c.fill_guards(stream);
    if (beta == 0.0f) {
      // 0xFF bytes are a NaN in fp32, fp16 and bf16: an element the kernel skips stays NaN.
      check_cuda(cudaMemsetAsync(c.data(), 0xFF, c.bytes(), stream), "cudaMemsetAsync (poison C)");
    } else {
      check_cuda(cudaMemcpyAsync(c.data(), set.c0.data(), c.bytes(), cudaMemcpyDeviceToDevice,
                                 stream),
                 "cudaMemcpyAsync (initial C)");
    }
    GemmArgs const args = packed_gemm_args(p, set.a.data(), set.b.data(), c.data(), workspace_ptr(),
                                    counters_ptr(), alpha, beta);
    if (LaunchStatus s = run_plan(args); !s.ok()) {
      fail_launch(r, s, phase);
      return false;
    }
    if (cudaError_t const e = cudaStreamSynchronize(stream); e != cudaSuccess) {
      fail_launch(r, {static_cast<int>(e), "kernel execution: " + cuda_error_text(e)}, phase);
      return false;
    }
    mark(step + "run");
    for (auto const& [buffer, name] : {std::pair<DeviceBuffer*, char const*>{&c, "C"},
                                       {&set.a, "A"}, {&set.b, "B"}}) {
      if (auto damage = buffer->check_guards(name)) {
        wrong(r, phase, *damage);
        return false;
      }
    }
    mark(step + "guard bands");
    if (check_inputs) {
      std::string const complaint = check_and_restore_inputs();
      mark(step + "inputs unchanged");
      if (!complaint.empty()) {
        wrong(r, phase, complaint);
        return false;
      }
    }
    std::span<std::byte> const out = data->staging().first(c.bytes());
    download(out.data(), c.data(), out.size(), stream);
    mark(step + "read back C");
    std::span<float const> values;
    if (p.precision == Precision::kFP32 || p.precision == Precision::kTF32) {
      // Storage is float already: compare straight from the staging buffer.
      values = {reinterpret_cast<float const*>(out.data()), out.size() / sizeof(float)};
    } else {
      std::span<float> const converted = data->c_values();
      from_storage_into(out, p.precision, converted, threads);
      values = converted;
    }
    if (tolerance) {
      ToleranceModel const model = tolerance_model(p.precision, p.k, set.max_s);
      ToleranceReport const t =
          compare_with_tolerance(values, set.reference, set.bound_s, p.n, model, threads);
      mark(step + "compare");
      r.max_abs_err = std::max(r.max_abs_err, t.max_abs_err);
      r.max_err_ratio = std::max(r.max_err_ratio, t.max_err_ratio);
      r.rel_fro_err = std::max(r.rel_fro_err, t.rel_fro_err);
      if (!t.pass) {
        wrong(r, phase, t.reason);
        return false;
      }
    } else {
      ExactReport const x = compare_exact(values, set.reference, p.n, threads);
      mark(step + "compare");
      r.exact_mismatches = std::max(r.exact_mismatches, x.mismatches);
      if (x.mismatches > 0) {
        wrong(r, phase, x.reason);
        return false;
      }
    }
    return true;
  }

  EvalResult evaluate(EvalJob const& job) {
    phases.clear();
    phase_start = std::chrono::steady_clock::now();
    used_sets.clear();
    inputs_checked = false;
    vendor = Vendor::kNone;
    EvalResult r;
    try {
      run_candidate(r, job);
      // A candidate that stopped before the final check may still have written its inputs:
      // check and restore them, so the next candidate of this problem sees intact data.
      if (!used_sets.empty() && !inputs_checked && !poisoned) {
        std::string const complaint = check_and_restore_inputs();
        mark("inputs unchanged (after a failure)");
        if (!complaint.empty()) {
          r.reason = r.disposition == Disposition::kWrongResult ? complaint + "; " + r.reason
                                                                : r.reason + "; " + complaint;
        }
      }
    } catch (CudaFailure const& f) {
      // The inputs may be left modified and unchecked: regenerate them for the next job.
      if (!is_sticky(f.cuda_error()) && !used_sets.empty()) data.reset();
      throw;
    } catch (Error const&) {
      if (!used_sets.empty()) data.reset();
      throw;
    }
    return r;
  }

  void run_candidate(EvalResult& r, EvalJob const& job) {
    ProblemData& d = data_for(job.problem, job.seed);
    Problem const& p = d.problem();
    plan = &job.plan;
    mark("problem data");

    if (std::optional<KernelConfig> const v = vendor_config(job)) {
      // A vendor candidate: the same verify → time → re-verify, with its call as the launch.
      if (std::string const why = vendor_reject_reason(*v); !why.empty()) {
        fail_launch(r, {0, why}, "load: ");  // an id that names no call is the candidate's fault
        return;
      }
      if (v->family == kCublasLtFamily) {
        if (std::string const why = lt->prepare(p, lt_algo_config(*v)); !why.empty()) {
          fail_launch(r, {0, why}, "load: ");
          return;
        }
        vendor = Vendor::kCublasLt;
      } else {
        vendor = Vendor::kCublas;
      }
    } else {
      KernelFigures figures;
      if (LaunchStatus s = runner.prepare(job.cubin_path, job.plan, p, figures); !s.ok()) {
        fail_launch(r, s, "load: ");
        return;
      }
      r.registers = figures.registers;
      r.local_bytes = figures.local_bytes;
      r.static_smem = figures.static_smem;
    }

    if (!size_buffer(r, workspace, job.plan.workspace_bytes, "workspace_bytes") ||
        !size_buffer(r, counters, job.plan.counter_bytes, "counter_bytes")) {
      return;
    }
    if (!counters.empty()) {
      check_cuda(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream),
                 "cudaMemsetAsync (split-K counters)");
    }
    mark("load");

    // 1. Tolerance pass on normal inputs, first launch.
    d.ensure_reference(d.normal(), job.alpha, job.beta, true, cublas->get());
    mark("reference");
    if (!verified_run(r, d.normal(), "", job.alpha, job.beta, true, "first run: ", false)) return;

    // 2. Exact pass on small integers (alpha 1, beta 0: the point is indexing, not scaling).
    if (job.exact_check && exact_pass_applies(p.precision)) {
      d.ensure_reference(d.exact(), 1.0f, 0.0f, false, cublas->get());
      mark("exact reference");
      if (!verified_run(r, d.exact(), " of the exact-pass set", 1.0f, 0.0f, false, "",
                        false)) {
        return;
      }
    }

    // 3. Time on the rotation pool.
    RotationPool const& pool = d.pool(rotate_bytes(job.timing));
    mark("rotation pool");
    void* const ws_ptr = workspace_ptr();
    TimedLaunch const launch = [&](int set) {
      GemmPointers const g = pool.set(set);
      return run_plan(packed_gemm_args(p, g.a, g.b, g.c, ws_ptr, counters_ptr(), job.alpha, job.beta));
    };
    TimingResult const t = time_launches(launch, pool.set_count(), job.timing, stream,
                                         sensors.get());
    mark("timing");
    if (!t.failure.ok()) {
      fail_launch(r, t.failure, "timing: ");
      return;
    }
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.max_ms = t.max_ms;
    r.protocol = t.protocol;
    r.host_us_per_call = t.host_us_per_call;
    r.iterations = t.iterations;
    r.repeats = t.repeats;
    r.power = t.power;

    // 4. Re-verify after the timed launches (faults and races that need repetition). Writes to
    // inputs persist, so checking A and B of every set used once, here, sees a write made by
    // any verified launch of this evaluation.
    if (!verified_run(r, d.normal(), "", job.alpha, job.beta, true, "after timing: ", true)) {
      return;
    }
    if (!counters_clear()) {
      wrong(r, "after timing: ", "split-K counters were not left at zero");
      return;
    }

    r.disposition = Disposition::kOk;
    if (t.early_stopped) {
      r.reason = "early stop: slower than " + ms_text(job.timing.early_stop_ms) +
                 " per launch (calibration " + ms_text(t.calibration_ms) + ")";
    }
  }

  BaselineResult baseline(BaselineJob const& job) {
    BaselineResult r;
    ProblemData& d = data_for(job.problem, job.seed);
    Problem const& p = d.problem();
    TimingSpec spec = job.timing;
    spec.early_stop_ms = 0.0;  // a baseline is always timed in full
    RotationPool const& pool = d.pool(rotate_bytes(spec));

    CublasContract const contract = baseline_contract(p.precision);
    TimedLaunch const launch = [&](int set) -> LaunchStatus {
      GemmPointers const g = pool.set(set);
      cublasStatus_t const s = gemm_row_major(cublas->get(), p, contract, g.a, g.b, g.c, 1.0f, 0.0f);
      if (s != CUBLAS_STATUS_SUCCESS) return {0, "cublasGemmEx: " + cublas_status_text(s)};
      return {};
    };
    TimingResult const t = time_launches(launch, pool.set_count(), spec, stream, sensors.get());
    if (!t.failure.ok()) {
      if (is_sticky(t.failure.cuda_error)) poison(t.failure.cuda_error);
      r.reason = "cuBLAS: " + t.failure.error;
      return r;
    }
    r.cublas_ms = t.median_ms;
    r.cublas_min_ms = t.min_ms;
    r.cublas_max_ms = t.max_ms;
    r.cublas_host_us = t.host_us_per_call;
    r.protocol = t.protocol;
    r.cublas_power = t.power;

    std::optional<LtAlgoConfig> const given = parse_lt_algo(job.cublaslt_kernel);
    if (!job.cublaslt_kernel.empty() && !given) {
      r.reason = "not a valid cublaslt id: '" + job.cublaslt_kernel + "'";
      return r;
    }
    LtAutotuneResult const lt_result = given ? lt->time_one(p, *given, pool, spec, sensors.get())
                                             : lt->run(p, pool, spec, sensors.get());
    if (is_sticky(lt_result.timing.failure.cuda_error)) {
      poison(lt_result.timing.failure.cuda_error);
      r.reason = lt_result.reason;
      return r;
    }
    r.ok = true;
    r.cublaslt_algos_tried = lt_result.algos_tried;
    if (lt_result.ok) {
      r.cublaslt_ms = lt_result.timing.median_ms;
      r.cublaslt_min_ms = lt_result.timing.min_ms;
      r.cublaslt_max_ms = lt_result.timing.max_ms;
      r.cublaslt_host_us = lt_result.timing.host_us_per_call;
      r.cublaslt_power = lt_result.timing.power;
      r.cublaslt_algo_index = lt_result.algo_index;
      r.cublaslt_kernel = to_kernel_config(lt_result.winner).id();
      r.reason = lt_result.reason;
    } else {
      r.reason = "cuBLASLt: " + lt_result.reason;
    }
    if (job.verify) verify_vendor(r, d, lt_result.ok);
    return r;
  }

  /// The tolerance pass of the default call and of the cuBLASLt algorithm left prepared, on the
  /// normal inputs against the reference (alpha 1, beta 0, as they were timed).
  void verify_vendor(BaselineResult& r, ProblemData& d, bool lt_prepared) {
    phases.clear();
    phase_start = std::chrono::steady_clock::now();
    used_sets.clear();
    inputs_checked = false;
    d.ensure_reference(d.normal(), 1.0f, 0.0f, true, cublas->get());
    struct Check {
      Vendor which;
      Disposition* verdict;
      double* err_ratio;
      char const* name;
    };
    std::vector<Check> checks{{Vendor::kCublas, &r.cublas_verdict, &r.cublas_err_ratio, "cuBLAS"}};
    if (lt_prepared) {
      checks.push_back({Vendor::kCublasLt, &r.cublaslt_verdict, &r.cublaslt_err_ratio, "cuBLASLt"});
    }
    for (Check const& c : checks) {
      vendor = c.which;
      EvalResult e;
      bool const ok = verified_run(e, d.normal(), "", 1.0f, 0.0f, true, "", true);
      *c.verdict = ok ? Disposition::kOk : e.disposition;
      *c.err_ratio = e.max_err_ratio;
      if (!ok) {
        if (!r.verdict_reason.empty()) r.verdict_reason += "; ";
        r.verdict_reason += std::string(c.name) + ": " + e.reason;
      }
      if (poisoned) break;
    }
    vendor = Vendor::kNone;
  }
};

GpuSession::GpuSession() : impl_(std::make_unique<Impl>()) {
  impl_->report = probe_device();
  if (!impl_->report.present) throw Error("no GPU for the session: " + impl_->report.reason);
  check_cuda(cudaSetDevice(0), "cudaSetDevice(0)");
  check_cuda(cudaFree(nullptr), "creating the CUDA context");
  check_cuda(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags");
  impl_->cublas = std::make_unique<CublasHandle>(impl_->stream);
  impl_->lt = std::make_unique<CublasLtAutotuner>(impl_->stream);
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0) == cudaSuccess) {
    auto sensors = std::make_unique<DeviceSensors>(bus_id);
    if (sensors->available()) impl_->sensors = std::move(sensors);
  }
}

GpuSession::~GpuSession() = default;

DeviceReport const& GpuSession::device() const { return impl_->report; }

bool GpuSession::poisoned() const { return impl_->poisoned; }

std::vector<PhaseTime> const& GpuSession::last_phases() const { return impl_->phases; }

EvalResult GpuSession::evaluate(EvalJob const& job) {
  if (impl_->poisoned) {
    impl_->phases.clear();
    EvalResult r;
    r.disposition = Disposition::kFault;
    r.cuda_error = impl_->poison_error;
    r.reason = impl_->poisoned_reason();
    return r;
  }
  try {
    return impl_->evaluate(job);
  } catch (CudaFailure const& f) {
    // A runtime call outside the candidate failed with a sticky code: the candidate's fault
    // surfaced late (e.g. at a copy). Anything else is an environment failure for the caller.
    if (!is_sticky(f.cuda_error())) throw;
    impl_->poison(f.cuda_error());
    EvalResult r;
    r.disposition = Disposition::kFault;
    r.cuda_error = f.cuda_error();
    r.reason = f.what();
    return r;
  }
}

BaselineResult GpuSession::baseline(BaselineJob const& job) {
  if (impl_->poisoned) {
    BaselineResult r;
    r.reason = impl_->poisoned_reason();
    return r;
  }
  try {
    return impl_->baseline(job);
  } catch (CudaFailure const& f) {
    if (!is_sticky(f.cuda_error())) throw;
    impl_->poison(f.cuda_error());
    BaselineResult r;
    r.reason = f.what();
    return r;
  }
}

}  // namespace gemmtune
