// gemmtune_runtime_timing: does the runtime library's gemm() run a tuned kernel as fast as the
// tuner timed it? For each entry of a tuning table for this GPU, the entry's kernel is timed two
// ways in one process, on one stream and one set of rotating buffers, with the tuner's own
// timing protocol (as the search's re-time that measured the table's figures):
// the search's direct launch of the compiled plan, and a call of gemmtune::Runtime::gemm. Both
// paths are timed together (time_interleaved, as the search's re-time): a settle of their
// repeats in turn, so the rounds see this GEMM's power state, then rounds whose repeats
// alternate between the paths, so the board's clock swings fall on both; each round carries
// the board's clock and temperature; medians over rounds are compared. Host overhead per gemm()
// call is the wall time of queueing calls behind a stream held shut by a host callback, so only
// submission costs are counted and the GPU's speed does not enter.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/runtime_timing_options.hpp"
#include "bench/runtime_timing_report.hpp"
#include "gemmtune/runtime.hpp"
#include "src/core/host_sample_plan.hpp"
#include "src/core/tuning_table.hpp"
#include "src/core/vendor_kernel.hpp"
#include "src/gpu/candidate_runner.hpp"
#include "src/gpu/cublaslt_autotune.hpp"
#include "src/gpu/cublas_handle.hpp"
#include "src/gpu/device_buffer.hpp"
#include "src/gpu/device_probe.hpp"
#include "src/gpu/device_sensors.hpp"
#include "src/gpu/gpu_session.hpp"
#include "src/gpu/host_inputs.hpp"
#include "src/gpu/rotation_pool.hpp"
#include "src/gpu/timing_protocol.hpp"
#include "src/kernels/family.hpp"
#include "src/launch/cuda_errors.hpp"
#include "src/nvrtc/compiler.hpp"
#include "tuner/search/eval_job_builder.hpp"
#include "tuner/search/search_session.hpp"

namespace gemmtune::bench {
namespace {

constexpr int kExitNotClean = 1;
constexpr int kExitNoGpu = 2;
constexpr int kExitUsage = 3;
/// Host-overhead samples per path (their median is reported) and calls per sample. Every call
/// queued for a sample runs on the GPU once the gate opens; for a long GEMM that was most of an
/// entry's time (8192³ fp32: 5 × 64 calls × 21 ms, 7 s per path), so a path's samples are held
/// to about 1 s of GPU time: fewer samples (at least 3), then fewer calls (at least 16; 16 calls
/// of ~10 µs are still ~100× the clock's grain).
HostSampleLimits overhead_limits(int calls) { return {5, 3, calls, 16, 1000.0}; }

/// A held stream is released after this long even if the host never opens it, so a launch queue
/// that fills up (and blocks the host) cannot deadlock the benchmark.
constexpr auto kGateTimeout = std::chrono::seconds(2);

using Clock = std::chrono::steady_clock;

/// A host callback that keeps its stream from starting later work until opened (or timed out).
struct StreamGate {
  std::atomic<bool> open{false};
  std::atomic<bool> timed_out{false};
};

void CUDART_CB hold_stream(void* data) {
  auto* gate = static_cast<StreamGate*>(data);
  auto const deadline = Clock::now() + kGateTimeout;
  while (!gate->open.load(std::memory_order_acquire)) {
    if (Clock::now() > deadline) {
      gate->timed_out = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

/// Median wall time in µs of queueing one launch, over `samples` samples of `calls` launches
/// queued behind a held stream. `problem` says why a figure is not to be trusted.
double host_us_per_call(TimedLaunch const& launch, int sets, HostSamplePlan const& plan,
                        cudaStream_t stream, std::string& problem) {
  int const calls = plan.calls;
  // One call first, unmeasured: a library's first call may load modules or pick a kernel, and
  // cuBLAS with lazy loading stalls until its held stream is released.
  if (LaunchStatus const st = launch(0); !st.ok()) {
    throw std::runtime_error("host overhead: " + st.error);
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> samples;
  for (int s = 0; s < plan.samples; ++s) {
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    StreamGate gate;
    check_cuda(cudaLaunchHostFunc(stream, hold_stream, &gate), "cudaLaunchHostFunc");
    auto const t0 = Clock::now();
    for (int i = 0; i < calls; ++i) {
      if (LaunchStatus const st = launch(i % sets); !st.ok()) {
        gate.open = true;
        (void)cudaStreamSynchronize(stream);
        throw std::runtime_error("host overhead: " + st.error);
      }
    }
    auto const t1 = Clock::now();
    gate.open.store(true, std::memory_order_release);
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (gate.timed_out) {
      problem = "the launch queue filled before " + std::to_string(calls) +
                " calls were queued: the host figure includes waiting";
    }
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  return median_of(std::move(samples));
}

/// Copies C of the pool's set 0 to the host.
std::vector<unsigned char> download_c(RotationPool const& pool, Problem const& p,
                                      cudaStream_t stream) {
  std::vector<unsigned char> host(static_cast<std::size_t>(p.m * p.n * output_bytes(p.precision)));
  check_cuda(
      cudaMemcpyAsync(host.data(), pool.set(0).c, host.size(), cudaMemcpyDeviceToHost, stream),
      "cudaMemcpyAsync (C)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return host;
}

std::string runtime_failure(GemmStatus status, GemmInfo const& info) {
  return "gemm(): " + std::string(to_string(status)) + ": " + info.detail;
}

struct Context {
  RuntimeTimingOptions const& options;
  DeviceReport const& device;
  TimingSpec timing;
  Compiler compiler;
  std::string cubin_dir;  // where compiled candidates are written when the compiler has no cache
  Runtime& runtime;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;  // bound to `stream`: the host-cost baseline
  DeviceSensors const* sensors = nullptr;  // per-round board state, when NVML is there
};

/// The search's job for one entry: compiled as the search compiles it, with its launch plan.
struct TunerJob {
  CompileResult compiled;
  EvalJob job;
};

/// Builds the TunerJob of `entry` for a device with `limits`; nullopt with `note` set when the
/// tuner could not run the entry in this build.
std::optional<TunerJob> tuner_job(Compiler const& compiler, std::string const& cubin_dir,
                                  TimingSpec const& timing, DeviceLimits const& limits,
                                  TableEntry const& entry, std::string& note) {
  Problem const& p = entry.problem;
  Family const* family = find_family(entry.kernel.family);
  if (family == nullptr) {
    note = "family '" + entry.kernel.family + "' is not in this build";
    return std::nullopt;
  }
  if (std::string why = family->reject_reason(entry.kernel, p, limits); !why.empty()) {
    note = "the tuner would not run it: " + why;
    return std::nullopt;
  }
  if (p.align > p.packed_alignment()) {
    note = "entry tuned at align " + std::to_string(p.align) +
           ", more than packed storage gives (" + std::to_string(p.packed_alignment()) + ")";
    return std::nullopt;
  }
  TunerJob t;
  t.compiled = compiler.compile(family->compile_request(entry.kernel, p, limits.arch));
  if (!t.compiled.ok) {
    note = "NVRTC compile failed";
    std::cerr << p.describe() << " " << entry.kernel.id() << ": compile log:\n"
              << t.compiled.log << "\n";
    return std::nullopt;
  }
  t.job = make_eval_job(*family, entry.kernel, p, t.compiled, cubin_dir, 1, timing);
  if (t.job.plan.workspace_bytes < 0) {
    note = "negative workspace in the launch plan";
    return std::nullopt;
  }
  return t;
}

/// Times one entry both ways; failures of the comparison (not of CUDA) end up in row.note.
TimingRow time_entry(Context& ctx, TableEntry const& entry) {
  Problem const& p = entry.problem;
  TimingRow row;
  row.shape = p.shape();
  row.precision = std::string(to_string(p.precision));
  row.layout = std::string(to_string(p.layout));
  row.align = p.align;
  row.kernel = entry.kernel.id();
  row.table_ms = entry.time_ms;
  row.table_cublas_ms = entry.cublas_ms.value_or(0.0);
  if (entry.board) {
    row.table_board_mhz = entry.board->sm_clock_mhz;
    row.table_board_c = entry.board->temperature_c;
  }
  row.overhead_calls = ctx.options.overhead_calls;

  // The tuner's path: compile as the search does, build its EvalJob, prepare its launches; for
  // a vendor pick, the worker's own call of that algorithm (GpuSession's vendor candidates).
  bool const vendor = entry.vendor();
  std::optional<TunerJob> tuner;
  if (!vendor) {
    tuner = tuner_job(ctx.compiler, ctx.cubin_dir, ctx.timing, ctx.device.limits, entry, row.note);
    if (!tuner) return row;
  }
  EvalJob const job = tuner ? tuner->job : EvalJob{};
  CandidateRunner runner;
  std::unique_ptr<CublasLtAutotuner> lt;
  if (!vendor) {
    KernelFigures figures;
    if (LaunchStatus const s = runner.prepare(job.cubin_path, job.plan, p, figures); !s.ok()) {
      row.note = "prepare: " + s.error;
      return row;
    }
  } else if (entry.kernel.family == kCublasLtFamily) {
    lt = std::make_unique<CublasLtAutotuner>(ctx.stream);
    if (std::string const why = lt->prepare(p, lt_algo_config(entry.kernel)); !why.empty()) {
      row.note = "cuBLASLt: " + why;
      return row;
    }
  }
  DeviceBuffer workspace, counters;
  if (job.plan.workspace_bytes > 0)
    workspace = DeviceBuffer(static_cast<std::size_t>(job.plan.workspace_bytes));
  if (job.plan.counter_bytes > 0) {
    // Cleared once, as GpuSession does per candidate: every run leaves them zero.
    counters = DeviceBuffer(static_cast<std::size_t>(job.plan.counter_bytes));
    check_cuda(cudaMemset(counters.data(), 0, counters.bytes()), "cudaMemset (split-K counters)");
  }

  // One rotation pool of seeded normal inputs (as the tuner times on), shared by both paths.
  std::size_t const e = static_cast<std::size_t>(input_bytes(p.precision));
  std::vector<std::byte> const a_host =
      to_storage(random_normal(static_cast<std::size_t>(p.m * p.k), 1, 0), p.precision);
  std::vector<std::byte> const b_host =
      to_storage(random_normal(static_cast<std::size_t>(p.k * p.n), 1, 1), p.precision);
  RotationPool pool = [&] {
    DeviceBuffer a(static_cast<std::size_t>(p.m * p.k) * e),
        b(static_cast<std::size_t>(p.k * p.n) * e);
    check_cuda(cudaMemcpy(a.data(), a_host.data(), a_host.size(), cudaMemcpyHostToDevice),
               "upload A");
    check_cuda(cudaMemcpy(b.data(), b_host.data(), b_host.size(), cudaMemcpyHostToDevice),
               "upload B");
    // A pageable upload may still be in flight when cudaMemcpy returns, and the non-blocking
    // stream below does not wait for the legacy stream.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (uploads)");
    std::int64_t const rotate =
        ctx.timing.rotate_bytes > 0 ? ctx.timing.rotate_bytes : 2 * ctx.device.limits.l2_bytes;
    RotationPool made(p, rotate, a.data(), b.data(), ctx.stream);
    check_cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
    return made;
  }();

  float const alpha = job.alpha, beta = job.beta;
  void* const ws = workspace.empty() ? nullptr : workspace.data();
  CublasContract const contract = baseline_contract(p.precision);
  // Exactly what GpuSession does per timed launch (run_plan).
  TimedLaunch const tuner_launch = [&](int set) -> LaunchStatus {
    GemmPointers const g = pool.set(set);
    if (lt) return lt->launch(g.a, g.b, g.c, alpha, beta);
    if (vendor) {
      cublasStatus_t const st = gemm_row_major(ctx.cublas, p, contract, g.a, g.b, g.c, alpha, beta);
      if (st != CUBLAS_STATUS_SUCCESS) return {0, "cuBLAS: " + cublas_status_text(st)};
      return {};
    }
    if (job.plan.zero_workspace && ws != nullptr) {
      cudaError_t const err = cudaMemsetAsync(ws, 0, workspace.bytes(), ctx.stream);
      if (err != cudaSuccess)
        return {static_cast<int>(err), "workspace memset: " + cuda_error_text(err)};
    }
    GemmArgs const args = packed_gemm_args(
        p, g.a, g.b, g.c, ws, static_cast<unsigned*>(counters.empty() ? nullptr : counters.data()),
        alpha, beta);
    return runner.launch(args, ctx.stream);
  };
  // No GemmInfo, as an application calls it (filling one copies strings).
  TimedLaunch const runtime_launch = [&](int set) -> LaunchStatus {
    GemmPointers const g = pool.set(set);
    GemmStatus const st =
        ctx.runtime.gemm(p.precision, p.layout, p.m, p.n, p.k, alpha, g.a, p.lda(), g.b, p.ldb(),
                         beta, g.c, p.ldc(), ctx.stream, nullptr);
    if (st != GemmStatus::kOk) return {0, "gemm(): " + std::string(to_string(st))};
    return {};
  };

  // First call: compiles and decides; says which path and kernel the runtime took.
  {
    GemmPointers const g = pool.set(0);
    GemmInfo info;
    GemmStatus const st =
        ctx.runtime.gemm(p.precision, p.layout, p.m, p.n, p.k, alpha, g.a, p.lda(), g.b, p.ldb(),
                         beta, g.c, p.ldc(), ctx.stream, &info);
    check_cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (first gemm)");
    row.path = std::string(to_string(info.path));
    row.rule = info.rule;
    if (st != GemmStatus::kOk) {
      row.note = runtime_failure(st, info);
      return row;
    }
    GemmPath const expected = !vendor ? GemmPath::kTuned
                              : lt    ? GemmPath::kCublasLt
                                      : GemmPath::kCublas;
    if (info.path != expected) {
      row.note = "runtime did not take the " + std::string(to_string(expected)) +
                 " path: " + info.detail;
    } else if (info.kernel != row.kernel) {
      row.note = "runtime ran " + info.kernel + " (rule " + info.rule + ")";
    } else if (info.rule != "exact") {
      // Another alignment class than the entry's: the runtime compiles for the call's.
      row.note = "runtime matched by rule " + info.rule + " at align " + std::to_string(info.align);
    }
  }

  // Same kernel? C of one call each, bitwise (split-K reductions by atomics may differ in
  // rounding order, so a mismatch is reported, not fatal).
  {
    if (LaunchStatus const s = tuner_launch(0); !s.ok())
      throw std::runtime_error("tuner launch: " + s.error);
    std::vector<unsigned char> const c_tuner = download_c(pool, p, ctx.stream);
    check_cuda(cudaMemsetAsync(pool.set(0).c, 0, c_tuner.size(), ctx.stream),
               "cudaMemsetAsync (C)");
    if (LaunchStatus const s = runtime_launch(0); !s.ok()) throw std::runtime_error(s.error);
    std::vector<unsigned char> const c_runtime = download_c(pool, p, ctx.stream);
    row.outputs_match = c_tuner == c_runtime;
  }

  // The default cuBLAS call of the problem, as the search timed it beside the table's entry
  // (alpha 1, beta 0).
  TimedLaunch const cublas_launch = [&](int set) -> LaunchStatus {
    GemmPointers const g = pool.set(set);
    cublasStatus_t const st = gemm_row_major(ctx.cublas, p, contract, g.a, g.b, g.c, 1.0f, 0.0f);
    if (st != CUBLAS_STATUS_SUCCESS) return {0, "cuBLAS: " + cublas_status_text(st)};
    return {};
  };
  // The two paths and cuBLAS in one interleaved timing (time_interleaved, as the search's
  // re-time): a settle of their repeats in turn, then rounds whose repeats alternate, so the
  // board's clock swings under the power cap (about a second's period) fall on all alike.
  InterleavedTiming const t = time_interleaved(
      {{tuner_launch, {}}, {runtime_launch, {}}, {cublas_launch, {}}}, pool.set_count(),
      ctx.timing, ctx.options.rounds, ctx.options.settle_ms, ctx.stream, ctx.sensors);
  for (std::size_t path = 0; path < 3; ++path) {
    LaunchStatus const& f = t.entries[path].failure;
    if (f.ok()) continue;
    if (f.cuda_error != 0 && is_sticky(f.cuda_error)) {
      throw CudaFailure("timing: " + f.error, f.cuda_error);
    }
    char const* const names[] = {"tuner", "runtime", "cuBLAS"};
    row.note = std::string(names[path]) + " timing: " + f.error;
    return row;
  }
  row.tuner_ms = t.round_ms[0];
  row.runtime_ms = t.round_ms[1];
  row.cublas_ms = t.round_ms[2];
  row.round_board = t.round_board;

  std::string gate_problem;
  HostSamplePlan const plan = host_sample_plan(overhead_limits(ctx.options.overhead_calls),
                                               row.tuner_ms.empty() ? 0.0 : median_of(row.tuner_ms));
  row.overhead_calls = plan.calls;
  row.host_us_runtime =
      host_us_per_call(runtime_launch, pool.set_count(), plan, ctx.stream, gate_problem);
  row.host_us_direct =
      host_us_per_call(tuner_launch, pool.set_count(), plan, ctx.stream, gate_problem);
  row.host_us_cublas =
      host_us_per_call(cublas_launch, pool.set_count(), plan, ctx.stream, gate_problem);
  if (!gate_problem.empty() && row.note.empty()) row.note = gate_problem;
  return row;
}

std::string fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// A fresh directory for the cubins of compiles made without a disk cache.
std::string scratch_cubin_dir() {
  return (std::filesystem::temp_directory_path() /
          ("gemmtune-runtime-timing-" + std::to_string(::getpid())))
      .string();
}

/// --dry-run: builds the tuner's job of every selected entry for its table GPU's arch, with no
/// device, and prints each plan with ptxas figures; catches entries this build cannot run
/// before any GPU time is spent.
int dry_run(RuntimeTimingOptions const& options, TuningTable const& table) {
  Compiler const compiler(CompilerSettings{{}, options.cubin_cache});
  std::string const cubin_dir = scratch_cubin_dir();
  TimingSpec const timing = timing_spec(options, SearchOptions{}.final_timing);
  int count = 0, failed = 0;
  for (TableEntry const& e : table.entries) {
    if (!selected(options, e)) continue;
    ++count;
    TableGpu const* g = table.find_gpu(e.gpu);
    std::cout << e.problem.describe() << " " << e.kernel.id() << " (" << g->gpu.describe() << "): ";
    if (e.vendor()) {
      std::cout << "vendor pick (cuBLAS " << (e.cublas_version.empty() ? "?" : e.cublas_version)
                << "): checked on the device" << std::endl;
      continue;
    }
    std::optional<DeviceLimits> const limits = arch_limits(g->gpu.arch());
    std::string note;
    std::optional<TunerJob> const t =
        limits ? tuner_job(compiler, cubin_dir, timing, *limits, e, note) : std::nullopt;
    if (!limits) note = "no limits known for " + g->gpu.arch();
    if (!t) {
      std::cout << "NOT RUNNABLE: " << note << std::endl;
      ++failed;
      continue;
    }
    LaunchPlan const& plan = t->job.plan;
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
      KernelLaunch const& l = plan.launches[i];
      std::cout << (i ? "; " : "") << "grid " << l.grid.x << "x" << l.grid.y << "x" << l.grid.z
                << " block " << l.block.x << "x" << l.block.y << "x" << l.block.z << " smem "
                << l.dynamic_smem;
      if (i < t->compiled.resources.size()) {
        KernelResources const& r = t->compiled.resources[i];
        std::cout << " regs " << r.registers << " spills " << r.spill_stores + r.spill_loads;
      }
    }
    std::cout << ", workspace " << plan.workspace_bytes << (plan.tensor_maps.empty() ? "" : ", TMA")
              << std::endl;
  }
  std::error_code ec;
  std::filesystem::remove_all(cubin_dir, ec);
  if (count == 0) {
    std::cerr << "gemmtune_runtime_timing: no entry of " << options.table
              << " passes the filters\n";
    return kExitNotClean;
  }
  std::cout << count - failed << " of " << count
            << " entries compile and plan for the timing run\n";
  return failed == 0 ? 0 : kExitNotClean;
}

int run(RuntimeTimingOptions const& options) {
  TuningTable const table = read_tuning_table(options.table);  // bad table: exit 3 via main
  if (options.dry_run) return dry_run(options, table);

  DeviceReport const device = probe_device();
  if (!device.present) {
    std::cerr << "gemmtune_runtime_timing: no usable GPU: " << device.reason << "\n";
    return kExitNoGpu;
  }
  TableGpu const* gpu = nullptr;
  for (TableGpu const& g : table.gpus) {
    if (g.gpu == device.gpu) gpu = &g;
  }
  if (gpu == nullptr) {
    std::cerr << "gemmtune_runtime_timing: " << options.table << " has no entries for "
              << device.gpu.describe() << "; its GPUs:";
    for (TableGpu const& g : table.gpus) std::cerr << "\n  " << g.gpu.describe();
    std::cerr << "\n";
    return kExitNotClean;
  }
  std::vector<TableEntry const*> entries;
  for (TableEntry const& e : table.entries) {
    if (e.gpu == gpu->id && selected(options, e)) entries.push_back(&e);
  }
  if (entries.empty()) {
    std::cerr << "gemmtune_runtime_timing: no entry of " << options.table << " for "
              << device.gpu.describe() << " passes the filters\n";
    return kExitNotClean;
  }

  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  RuntimeOptions runtime_options;
  runtime_options.cubin_cache_dir = options.cubin_cache;
  Runtime runtime(options.table, runtime_options);
  std::string const cubin_dir = scratch_cubin_dir();
  std::optional<CublasHandle> cublas(std::in_place, stream);  // destroyed before its stream
  std::unique_ptr<DeviceSensors> sensors;
  if (char bus_id[32] = {}; cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0) == cudaSuccess) {
    sensors = std::make_unique<DeviceSensors>(bus_id);
    if (!sensors->available()) {
      std::cerr << "gemmtune_runtime_timing: no board sensors (" << sensors->why_not()
                << "); rounds carry no clock or temperature\n";
      sensors.reset();
    }
  }
  Context ctx{options,
              device,
              timing_spec(options, SearchOptions{}.final_timing),
              Compiler(CompilerSettings{{}, options.cubin_cache}),
              cubin_dir,
              runtime,
              stream,
              cublas->get(),
              sensors.get()};

  std::cout << device.gpu.describe() << ", driver " << device.driver << ", CUDA runtime "
            << device.cuda_runtime << "\n"
            << runtime.describe() << "\n"
            << entries.size() << " entries, " << options.rounds << " interleaved rounds each; "
            << "timing: warm-up " << ctx.timing.warmup_ms << " ms, " << ctx.timing.repeats
            << " repeats of ~" << ctx.timing.target_ms << " ms, buffers rotated past "
            << (ctx.timing.rotate_bytes > 0 ? std::to_string(ctx.timing.rotate_bytes) + " bytes"
                                            : std::string("2x L2"))
            << "\n";

  std::vector<TimingRow> rows;
  for (TableEntry const* e : entries) {
    TimingRow row;
    try {
      row = time_entry(ctx, *e);
    } catch (CudaFailure const& f) {
      std::cerr << "gemmtune_runtime_timing: " << e->problem.describe() << ": " << f.what() << "\n";
      if (is_sticky(f.cuda_error())) {
        std::cerr << "the CUDA context is lost; stopping\n";
        return kExitNotClean;
      }
      row.shape = e->problem.shape();
      row.kernel = e->kernel.id();
      row.note = f.what();
    } catch (std::exception const& ex) {
      row.shape = e->problem.shape();
      row.precision = std::string(to_string(e->problem.precision));
      row.layout = std::string(to_string(e->problem.layout));
      row.kernel = e->kernel.id();
      row.note = ex.what();
    }
    auto const ratio = row.ratio();
    std::cout << row.shape << " " << row.precision << " " << row.layout << " " << row.kernel
              << ": tuner " << fixed(row.tuner_median(), 4) << " ms, runtime "
              << fixed(row.runtime_median(), 4) << " ms, ratio "
              << (ratio ? fixed(*ratio, 4) : std::string("-")) << ", host "
              << fixed(row.host_us_runtime, 2) << " us/call (direct launch "
              << fixed(row.host_us_direct, 2) << ", cuBLAS " << fixed(row.host_us_cublas, 2)
              << "), path " << row.path
              << (row.outputs_match ? (*row.outputs_match ? ", C identical" : ", C differs") : "")
              << (row.note.empty() ? "" : " [" + row.note + "]") << std::endl;
    rows.push_back(std::move(row));
  }
  std::error_code ec;
  std::filesystem::remove_all(cubin_dir, ec);

  TimingSummary const summary = summarize(rows);
  nlohmann::json meta;
  meta["what"] = "Runtime::gemm vs the tuner's timing of the same kernel";
  meta["device"] = device;
  meta["table"] = options.table;
  meta["table_generated_at"] = table.generated_at;
  meta["timing"] = ctx.timing;
  meta["rounds"] = options.rounds;
  meta["settle_ms"] = options.settle_ms;
  HostSampleLimits const limits = overhead_limits(options.overhead_calls);
  meta["host_overhead_method"] =
      "median of " + std::to_string(limits.samples) + " samples of wall time / calls for " +
      std::to_string(limits.calls) +
      " calls queued behind a stream held by a host callback (GPU work not started); for a "
      "long GEMM fewer (at least " + std::to_string(limits.min_samples) + " samples of " +
      std::to_string(limits.min_calls) + " calls, about " +
      std::to_string(static_cast<int>(limits.gpu_budget_ms)) + " ms of GPU time a path), the "
      "entry's calls in its overhead_calls";
  std::string const context =
      device.gpu.describe() + ", driver " + device.driver + ", table " + options.table + ". " +
      "Both paths and the default cuBLAS call timed together as the search's re-time times " +
      "its entries: warm-up " +
      fixed(ctx.timing.warmup_ms, 0) + " ms each, " + fixed(options.settle_ms, 0) +
      " ms of their repeats in turn untimed, then " + std::to_string(options.rounds) +
      " rounds of " + std::to_string(ctx.timing.repeats) + " repeats of ~" +
      fixed(ctx.timing.target_ms, 0) + " ms per path, the paths' repeats alternating " +
      "(inputs rotated past 2x L2, the same buffers); a round's figure is the median of its " +
      "repeats, the medians of the rounds shown. Host µs/call: " +
      meta["host_overhead_method"].get<std::string>() + ".";
  std::string const md = to_markdown(rows, summary, context);
  std::cout << "\n" << md;
  if (!options.json_out.empty()) {
    std::ofstream out(options.json_out);
    out << to_json_report(rows, summary, meta).dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + options.json_out);
  }
  if (!options.markdown_out.empty()) {
    std::ofstream out(options.markdown_out);
    out << md;
    if (!out) throw std::runtime_error("cannot write " + options.markdown_out);
  }
  cublas.reset();
  (void)cudaStreamDestroy(stream);
  return summary.clean_rows == summary.rows ? 0 : kExitNotClean;
}

}  // namespace
}  // namespace gemmtune::bench

int main(int argc, char** argv) {
  using namespace gemmtune::bench;
  RuntimeTimingOptions options;
  try {
    options = parse_runtime_timing_args(std::vector<std::string>(argv + 1, argv + argc));
  } catch (std::exception const& e) {
    std::cerr << "gemmtune_runtime_timing: " << e.what() << "\n" << runtime_timing_usage();
    return kExitUsage;
  }
  if (options.help) {
    std::cout << runtime_timing_usage();
    return 0;
  }
  try {
    return run(options);
  } catch (std::exception const& e) {
    std::cerr << "gemmtune_runtime_timing: " << e.what() << "\n";
    return kExitUsage;
  }
}
