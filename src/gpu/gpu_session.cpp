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
#include "src/gpu/copy_bandwidth.hpp"
#include "src/gpu/cublas_handle.hpp"
#include "src/gpu/cublaslt_autotune.hpp"
#include "src/gpu/device_probe.hpp"
#include "src/gpu/device_sensors.hpp"
#include "src/gpu/host_inputs.hpp"
#include "src/gpu/host_parallel.hpp"
#include "src/gpu/problem_data.hpp"
#include "src/gpu/profile_range.hpp"
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
      lt->use_scales(data->scale_a(), data->scale_b());
    }
    return *data;
  }

  /// GemmArgs of the current problem's packed storage, with its FP8 scales where it has them.
  GemmArgs problem_args(void const* a, void const* b, void* c, void* workspace,
                        unsigned* counters, float alpha, float beta) const {
    return packed_gemm_args(data->problem(), a, b, c, workspace, counters, alpha, beta,
                            data->scale_a(), data->scale_b());
  }

  /// The cuBLAS default on the current problem: cublasGemmEx, or for FP8 (which it does not
  /// take) cuBLASLt's heuristic choice.
  LaunchStatus cublas_default(void const* a, void const* b, void* c, float alpha, float beta) {
    Problem const& p = data->problem();
    if (is_fp8(p.precision)) return lt->launch_default(p, a, b, c, alpha, beta);
    cublasStatus_t const st =
        gemm_row_major(cublas->get(), p, baseline_contract(p.precision), a, b, c, alpha, beta);
    if (st != CUBLAS_STATUS_SUCCESS) return {0, "cublasGemmEx: " + cublas_status_text(st)};
    return {};
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
    if (vendor == Vendor::kCublas) return cublas_default(args.A, args.B, args.C, args.alpha, args.beta);
    if (vendor == Vendor::kCublasLt) return lt->launch(args.A, args.B, args.C, args.alpha, args.beta);
    if (plan->zero_workspace && !workspace.empty() && plan->workspace_bytes > 0) {
      // The plan's own bytes: a re-time sizes one buffer for its largest candidate.
      cudaError_t const e = cudaMemsetAsync(workspace.data(), 0,
                                            static_cast<std::size_t>(plan->workspace_bytes), stream);
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
    GemmArgs const args = problem_args(set.a.data(), set.b.data(), c.data(), workspace_ptr(),
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
    Precision const c_type = output_precision(p.precision);
    if (c_type == Precision::kFP32 || c_type == Precision::kTF32) {
      // Storage is float already: compare straight from the staging buffer.
      values = {reinterpret_cast<float const*>(out.data()), out.size() / sizeof(float)};
    } else {
      std::span<float> const converted = data->c_values();
      from_storage_into(out, c_type, converted, threads);
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
    begin_checks();
    vendor = Vendor::kNone;
    EvalResult r;
    try {
      run_candidate(r, job);
      restore_inputs_after(r);
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

  /// Makes `job`'s candidate what run_plan() launches: its kernel loaded (the runner keeps
  /// recent libraries loaded, so a re-time switching between a few is cheap) and its plan, or
  /// its vendor call (the same verify → time → re-verify, with the call as the launch). With
  /// `figures`, the kernel's registers and memory are written there.
  LaunchStatus activate(EvalJob const& job, Problem const& p, EvalResult* figures) {
    plan = &job.plan;
    if (std::optional<KernelConfig> const v = vendor_config(job)) {
      if (std::string const why = vendor_reject_reason(*v); !why.empty()) return {0, why};
      if (v->family == kCublasLtFamily) {
        if (std::string const why = lt->prepare(p, lt_algo_config(*v)); !why.empty()) {
          return {0, why};
        }
        vendor = Vendor::kCublasLt;
      } else {
        vendor = Vendor::kCublas;
      }
      return {};
    }
    vendor = Vendor::kNone;
    KernelFigures k;
    LaunchStatus s = runner.prepare(job.cubin_path, job.plan, p, k);
    if (s.ok() && figures != nullptr) {
      figures->registers = k.registers;
      figures->local_bytes = k.local_bytes;
      figures->static_smem = k.static_smem;
    }
    return s;
  }

  /// A candidate's timed figures, from an evaluation's timing or a re-time's rounds.
  static void take_figures(EvalResult& r, TimingResult const& t) {
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.max_ms = t.max_ms;
    r.protocol = t.protocol;
    r.host_us_per_call = t.host_us_per_call;
    r.iterations = t.iterations;
    r.repeats = t.repeats;
    r.power = t.power;
  }

  /// Starts the input bookkeeping of one candidate's verified runs.
  void begin_checks() {
    used_sets.clear();
    inputs_checked = false;
  }

  /// A candidate stopped before its final check may still have written its inputs: check and
  /// restore them (named in its reason), so the next candidate sees intact data.
  void restore_inputs_after(EvalResult& r) {
    if (used_sets.empty() || inputs_checked || poisoned) return;
    std::string const complaint = check_and_restore_inputs();
    mark("inputs unchanged (after a failure)");
    if (!complaint.empty()) {
      r.reason = r.disposition == Disposition::kWrongResult ? complaint + "; " + r.reason
                                                            : r.reason + "; " + complaint;
    }
  }

  RetimeResult retime(RetimeJob const& job) {
    phases.clear();
    phase_start = std::chrono::steady_clock::now();
    BaselineJob const& base = job.baselines;
    for (EvalJob const& c : job.candidates) {
      if (!(c.problem == base.problem) || c.seed != base.seed) {
        throw Error("re-time: candidate " + c.kernel_id + " is not of the re-time's problem " +
                    base.problem.shape() + " and seed");
      }
    }
    std::optional<LtAlgoConfig> const lt_given = parse_lt_algo(base.cublaslt_kernel);
    if (!base.cublaslt_kernel.empty() && !lt_given) {
      throw Error("re-time: not a valid cublaslt id: '" + base.cublaslt_kernel + "'");
    }
    ProblemData& d = data_for(base.problem, base.seed);
    Problem const& p = d.problem();
    std::size_t const n = job.candidates.size();
    RetimeResult out;
    out.candidates.resize(n);
    out.candidate_rounds_ms.resize(n);
    out.baselines.protocol = base.timing.protocol;
    mark("problem data");

    // One workspace and one counter buffer, sized for the largest plan; each plan uses (and
    // zeroes) its own bytes, and the runs are one after the other on one stream.
    std::int64_t ws_bytes = 0;
    std::int64_t counter_bytes = 0;
    for (EvalJob const& c : job.candidates) {
      ws_bytes = std::max(ws_bytes, c.plan.workspace_bytes);
      counter_bytes = std::max(counter_bytes, c.plan.counter_bytes);
    }
    EvalResult sizing;
    if (!size_buffer(sizing, workspace, ws_bytes, "workspace_bytes") ||
        !size_buffer(sizing, counters, counter_bytes, "counter_bytes")) {
      for (EvalResult& r : out.candidates) r = sizing;
      out.baselines.reason = "re-time: " + sizing.reason;
      return out;
    }
    if (!counters.empty()) {
      check_cuda(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream),
                 "cudaMemsetAsync (split-K counters)");
    }

    // 1. Every candidate's verified first run; one that fails is left out of the rounds.
    std::vector<std::size_t> timed;  // candidates in the rounds
    for (std::size_t i = 0; i < n && !poisoned; ++i) {
      EvalJob const& c = job.candidates[i];
      EvalResult& r = out.candidates[i];
      begin_checks();
      if (LaunchStatus s = activate(c, p, &r); !s.ok()) {
        fail_launch(r, s, "load: ");
        continue;
      }
      d.ensure_reference(d.normal(), c.alpha, c.beta, true, cublas->get());
      if (!verified_run(r, d.normal(), "", c.alpha, c.beta, true, "first run: ", true)) {
        restore_inputs_after(r);
        continue;
      }
      timed.push_back(i);
    }
    mark("first runs");

    // 2. The rounds: cuBLAS, cuBLASLt when given, then the candidates.
    RotationPool const& pool = d.pool(rotate_bytes(base.timing));
    mark("rotation pool");
    std::vector<InterleavedEntry> entries;
    auto vendor_launch = [&](int set) {
      GemmPointers const g = pool.set(set);
      return run_plan(problem_args(g.a, g.b, g.c, nullptr, nullptr, 1.0f, 0.0f));
    };
    entries.push_back({vendor_launch, [this] {
                         vendor = Vendor::kCublas;
                         return LaunchStatus{};
                       }});
    if (lt_given) {
      entries.push_back({vendor_launch, [&]() -> LaunchStatus {
                           if (std::string const why = lt->prepare(p, *lt_given); !why.empty()) {
                             return {0, "cuBLASLt: " + why};
                           }
                           vendor = Vendor::kCublasLt;
                           return {};
                         }});
    }
    std::size_t const first_candidate = entries.size();
    for (std::size_t i : timed) {
      entries.push_back({[&, i](int set) {
                           GemmPointers const g = pool.set(set);
                           EvalJob const& cj = job.candidates[i];
                           return run_plan(problem_args(g.a, g.b, g.c, workspace_ptr(),
                                                            counters_ptr(), cj.alpha, cj.beta));
                         },
                         [&, i] { return activate(job.candidates[i], p, nullptr); }});
    }
    TimingSpec spec = base.timing;
    spec.early_stop_ms = 0.0;  // every entry of a re-time is timed in full
    InterleavedTiming const t = time_interleaved(entries, pool.set_count(), spec, job.rounds,
                                                 job.settle_ms, stream, sensors.get());
    mark("rounds");
    for (TimingResult const& e : t.entries) {
      if (!e.failure.ok() && e.failure.cuda_error != 0 && is_sticky(e.failure.cuda_error)) {
        poison(e.failure.cuda_error);
      }
    }
    out.round_board = t.round_board;

    TimingResult const& cb = t.entries[0];
    if (cb.failure.ok() && !t.round_ms[0].empty()) {
      out.baselines.ok = true;
      out.baselines.cublas_ms = cb.median_ms;
      out.baselines.cublas_min_ms = cb.min_ms;
      out.baselines.cublas_max_ms = cb.max_ms;
      out.baselines.cublas_host_us = cb.host_us_per_call;
      out.baselines.cublas_power = cb.power;
      out.cublas_rounds_ms = t.round_ms[0];
    } else {
      out.baselines.reason = "cuBLAS: " + cb.failure.error;
    }
    if (lt_given) {
      TimingResult const& lb = t.entries[1];
      if (lb.failure.ok() && !t.round_ms[1].empty()) {
        out.baselines.cublaslt_ms = lb.median_ms;
        out.baselines.cublaslt_min_ms = lb.min_ms;
        out.baselines.cublaslt_max_ms = lb.max_ms;
        out.baselines.cublaslt_host_us = lb.host_us_per_call;
        out.baselines.cublaslt_power = lb.power;
        out.baselines.cublaslt_kernel = base.cublaslt_kernel;
        out.cublaslt_rounds_ms = t.round_ms[1];
      } else {
        if (!out.baselines.reason.empty()) out.baselines.reason += "; ";
        out.baselines.reason += lb.failure.error;
      }
    }

    // 3. Each timed candidate's figures, then its verified run after the rounds.
    for (std::size_t slot = 0; slot < timed.size() && !poisoned; ++slot) {
      std::size_t const i = timed[slot];
      EvalJob const& c = job.candidates[i];
      EvalResult& r = out.candidates[i];
      TimingResult const& ct = t.entries[first_candidate + slot];
      if (!ct.failure.ok() || t.round_ms[first_candidate + slot].empty()) {
        fail_launch(r, ct.failure.ok() ? LaunchStatus{0, "no round completed"} : ct.failure,
                    "timing: ");
        continue;
      }
      take_figures(r, ct);
      begin_checks();
      if (LaunchStatus s = activate(c, p, nullptr); !s.ok()) {
        fail_launch(r, s, "after timing: ");
        continue;
      }
      if (!verified_run(r, d.normal(), "", c.alpha, c.beta, true, "after timing: ", true)) {
        restore_inputs_after(r);
        continue;
      }
      if (!counters_clear()) {
        wrong(r, "after timing: ", "split-K counters were not left at zero");
        continue;
      }
      r.disposition = Disposition::kOk;
      out.candidate_rounds_ms[i] = t.round_ms[first_candidate + slot];
    }
    mark("checks after the rounds");
    vendor = Vendor::kNone;
    if (poisoned) fault_unfinished(out);
    return out;
  }

  /// After a sticky error: every candidate without a verdict gets the fault.
  void fault_unfinished(RetimeResult& out) const {
    for (EvalResult& r : out.candidates) {
      if (r.disposition != Disposition::kSkipped) continue;
      r.disposition = Disposition::kFault;
      r.cuda_error = poison_error;
      r.reason = poisoned_reason();
    }
  }

  void run_candidate(EvalResult& r, EvalJob const& job) {
    ProblemData& d = data_for(job.problem, job.seed);
    Problem const& p = d.problem();
    plan = &job.plan;
    mark("problem data");

    if (LaunchStatus s = activate(job, p, &r); !s.ok()) {
      fail_launch(r, s, "load: ");  // an id that names no call is the candidate's fault too
      return;
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
      return run_plan(problem_args(g.a, g.b, g.c, ws_ptr, counters_ptr(), job.alpha, job.beta));
    };
    TimingResult const t = time_launches(launch, pool.set_count(), job.timing, stream,
                                         sensors.get());
    mark("timing");
    if (!t.failure.ok()) {
      fail_launch(r, t.failure, "timing: ");
      return;
    }
    take_figures(r, t);

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

    TimedLaunch const launch = [&](int set) -> LaunchStatus {
      GemmPointers const g = pool.set(set);
      return cublas_default(g.a, g.b, g.c, 1.0f, 0.0f);
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
      take_cublaslt(r, lt_result, 0);
      r.reason = lt_result.reason;
    } else {
      r.reason = "cuBLASLt: " + lt_result.reason;
    }
    if (!job.verify) return r;
    begin_vendor_checks(d);
    check_vendor(Vendor::kCublas, d, r.cublas_verdict, r.cublas_err_ratio, r.verdict_reason);
    if (!lt_result.ok || poisoned) return r;
    // The fastest algorithm of the short timings may be one a user must not ship (split-K
    // summed in place in bf16 fails the tolerance pass at large K); the next ones in that
    // order are tried until one passes, so the baseline names a verified cuBLASLt algorithm
    // where one exists. The ones passed over are kept, with their error.
    std::string lt_reason;
    std::size_t at = 0;  // the ranking's position of the algorithm prepared and timed
    while (true) {
      lt_reason.clear();
      if (check_vendor(Vendor::kCublasLt, d, r.cublaslt_verdict, r.cublaslt_err_ratio,
                       lt_reason) ||
          poisoned || r.cublaslt_verdict != Disposition::kWrongResult) {
        break;
      }
      LtAutotuneResult next;
      std::size_t pos = at + 1;
      for (; pos < lt_result.ranked.size() && pos <= static_cast<std::size_t>(kLtVerifyFallbacks);
           ++pos) {
        next = lt->time_one(p, lt_result.ranked[pos].config, pool, spec, sensors.get());
        if (is_sticky(next.timing.failure.cuda_error)) poison(next.timing.failure.cuda_error);
        if (next.ok || poisoned) break;
      }
      if (poisoned || !next.ok) break;
      r.cublaslt_rejected.push_back({r.cublaslt_kernel, r.cublaslt_err_ratio, lt_reason});
      take_cublaslt(r, next, pos);
      r.cublaslt_algo_index = lt_result.ranked[pos].index;
      at = pos;
    }
    if (!lt_reason.empty()) {
      r.verdict_reason += (r.verdict_reason.empty() ? "" : "; ") + std::string("cuBLASLt: ") + lt_reason;
    }
    return r;
  }

  /// The cuBLASLt figures of `lt_result`'s timing as the baseline's, with the algorithms after
  /// position `at` of its ranking as the runners-up.
  static void take_cublaslt(BaselineResult& r, LtAutotuneResult const& lt_result, std::size_t at) {
    r.cublaslt_ms = lt_result.timing.median_ms;
    r.cublaslt_min_ms = lt_result.timing.min_ms;
    r.cublaslt_max_ms = lt_result.timing.max_ms;
    r.cublaslt_host_us = lt_result.timing.host_us_per_call;
    r.cublaslt_power = lt_result.timing.power;
    r.cublaslt_algo_index = lt_result.algo_index;
    r.cublaslt_kernel = to_kernel_config(lt_result.winner).id();
    r.cublaslt_runners_up.clear();
    for (std::size_t k = at + 1; k < lt_result.ranked.size() &&
                                 k <= at + static_cast<std::size_t>(kLtRunnersUp);
         ++k) {
      r.cublaslt_runners_up.push_back(to_kernel_config(lt_result.ranked[k].config).id());
    }
  }

  /// Before the vendor calls' tolerance passes: the reference on the normal inputs (alpha 1,
  /// beta 0, as they were timed) and a fresh record of which sets were used.
  void begin_vendor_checks(ProblemData& d) {
    phases.clear();
    phase_start = std::chrono::steady_clock::now();
    used_sets.clear();
    inputs_checked = false;
    d.ensure_reference(d.normal(), 1.0f, 0.0f, true, cublas->get());
  }

  /// The tolerance pass of one vendor call (the default call, or the cuBLASLt algorithm left
  /// prepared) against the reference: its verdict and worst error ratio, and why when wrong
  /// (appended to `reason`). True when it passed.
  bool check_vendor(Vendor which, ProblemData& d, Disposition& verdict, double& err_ratio,
                    std::string& reason) {
    vendor = which;
    EvalResult e;
    bool const ok = verified_run(e, d.normal(), "", 1.0f, 0.0f, true, "", true);
    vendor = Vendor::kNone;
    verdict = ok ? Disposition::kOk : e.disposition;
    err_ratio = e.max_err_ratio;
    if (!ok) {
      if (!reason.empty()) reason += "; ";
      reason += (which == Vendor::kCublas ? "cuBLAS: " : "") + e.reason;
    }
    return ok;
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
  ProfileRange const range(kCandidateRange);
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

RetimeResult GpuSession::retime(RetimeJob const& job) {
  ProfileRange const range(kRetimeRange);
  RetimeResult out;
  if (!impl_->poisoned) {
    try {
      return impl_->retime(job);
    } catch (CudaFailure const& f) {
      // As in evaluate(): a sticky code outside a launch is a candidate's fault surfacing late.
      if (!is_sticky(f.cuda_error())) throw;
      impl_->poison(f.cuda_error());
    }
  }
  impl_->phases.clear();
  out.candidates.resize(job.candidates.size());
  out.candidate_rounds_ms.resize(job.candidates.size());
  out.baselines.reason = impl_->poisoned_reason();
  impl_->fault_unfinished(out);
  return out;
}

BaselineResult GpuSession::baseline(BaselineJob const& job) {
  ProfileRange const range(kBaselineRange);
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

CopyResult GpuSession::copy_bandwidth(CopyJob const& job) {
  CopyResult r;
  if (impl_->poisoned) {
    r.reason = impl_->poisoned_reason();
    return r;
  }
  try {
    return time_device_copy(job, impl_->stream);
  } catch (CudaFailure const& f) {
    if (!is_sticky(f.cuda_error())) throw;
    impl_->poison(f.cuda_error());
    r.reason = f.what();
    return r;
  }
}

}  // namespace gemmtune
