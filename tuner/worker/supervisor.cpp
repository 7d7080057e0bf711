// Per-device worker supervision: deadlines, kill and reap, lazy respawn, crash-loop breaker.
#include "tuner/worker/supervisor.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "src/core/error.hpp"
#include "tuner/worker/interrupt.hpp"
#include "tuner/worker/worker_process.hpp"
#include "tuner/worker/worker_protocol.hpp"

namespace gemmtune {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using Status = WorkerReply::Status;

namespace {

// A worker that closed its reply pipe should be gone almost at once; past this it is killed.
constexpr double kExitAfterEofS = 1.0;
constexpr double kReapTimeoutS = 10.0;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

// The worker must see exactly our device `index`. If our own CUDA_VISIBLE_DEVICES narrows the
// GPUs, index i means its i-th entry (an ordinal, UUID or MIG id), passed through verbatim.
std::string visible_device_for(int index) {
  if (index < 0) throw UsageError("device index " + std::to_string(index) + " is negative");
  char const* ours = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!ours) return std::to_string(index);
  std::vector<std::string> entries;
  std::string entry;
  for (char const* c = ours;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!entry.empty()) entries.push_back(entry);
      entry.clear();
      if (*c == '\0') break;
    } else if (*c != ' ') {
      entry += *c;
    }
  }
  if (static_cast<std::size_t>(index) >= entries.size())
    throw UsageError("device index " + std::to_string(index) +
                     " is not visible: CUDA_VISIBLE_DEVICES=\"" + ours + "\" lists " +
                     std::to_string(entries.size()) + " device(s)");
  return entries[static_cast<std::size_t>(index)];
}

}  // namespace

std::string_view to_string(WorkerReply::Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kError: return "error";
    case Status::kTimeout: return "timeout";
    case Status::kCrash: return "crash";
    case Status::kStopped: return "stopped";
    case Status::kInterrupted: return "interrupted";
  }
  return "?";
}

WorkerSupervisor::WorkerSupervisor(std::string exe_path, std::vector<std::string> argv,
                                   int device_index, SupervisorOptions options)
    : exe_(std::move(exe_path)),
      argv_(std::move(argv)),
      device_index_(device_index),
      options_(std::move(options)) {
  if (argv_.empty()) argv_.push_back(exe_);
  if (options_.max_consecutive_failures < 1)
    throw UsageError("max_consecutive_failures must be at least 1, got " +
                     std::to_string(options_.max_consecutive_failures));
  env_["CUDA_VISIBLE_DEVICES"] = visible_device_for(device_index_);
  for (auto const& [key, value] : options_.env) env_[key] = value;
}

WorkerSupervisor::~WorkerSupervisor() {
  if (worker_) worker_->kill(kReapTimeoutS);
  for (auto& w : lingering_) w->kill(0.5);
}

pid_t WorkerSupervisor::worker_pid() const { return worker_ ? worker_->pid() : 0; }

bool WorkerSupervisor::cancelled() const { return options_.stop_on_interrupt && interrupted(); }

WorkerReply WorkerSupervisor::stopped_reply() const {
  WorkerReply r;
  r.status = Status::kStopped;
  r.message = stop_reason_;
  return r;
}

void WorkerSupervisor::retire_worker(bool kill_first) {
  if (!worker_) return;
  auto const t = Clock::now();
  bool const reaped = kill_first ? worker_->kill(kReapTimeoutS) : worker_->reaped();
  pending_kill_s_ = seconds_since(t);
  if (!reaped) lingering_.push_back(std::move(worker_));
  worker_.reset();
}

void WorkerSupervisor::kill_worker() { retire_worker(true); }

WorkerSupervisor::StartResult WorkerSupervisor::start_one(std::string& why) {
  auto w = std::make_unique<WorkerProcess>();
  try {
    w->spawn(exe_, argv_, env_);
  } catch (Error const& e) {
    why = e.what();
    return StartResult::kFailed;
  }
  std::string const who = "worker pid " + std::to_string(w->pid());
  Deadline const deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(
                                                   options_.startup_timeout_s));
  auto const cancel = [this] { return cancelled(); };
  // Explains a failed frame operation during startup; kills the worker unless it already died.
  auto fail = [&](FrameStatus s, char const* waiting_for) {
    if (s == FrameStatus::kCancelled) return StartResult::kInterrupted;
    if (s == FrameStatus::kEof && w->wait_exit(kExitAfterEofS))
      why = who + " " + w->describe_exit() + " before its " + waiting_for;
    else if (s == FrameStatus::kEof)
      why = who + " closed its pipes before its " + waiting_for;
    else
      why = who + " sent no " + waiting_for + " within " + seconds_text(options_.startup_timeout_s);
    return StartResult::kFailed;
  };
  try {
    json m;
    if (FrameStatus s = w->receive(m, deadline, cancel); s != FrameStatus::kOk)
      return fail(s, "hello");
    WorkerHello const hello = parse_hello(m);
    if (hello.protocol != kWorkerProtocolVersion) {
      why = who + " speaks protocol " + std::to_string(hello.protocol) + ", expected " +
            std::to_string(kWorkerProtocolVersion) + " (is '" + exe_ + "' another gemmtune build?)";
      return StartResult::kFailed;
    }
    std::uint64_t const id = ++next_id_;
    WorkerRequest canary{id, options_.canary_type, options_.canary_payload};
    if (FrameStatus s = w->send(to_message(canary), deadline, cancel); s != FrameStatus::kOk)
      return fail(s, "canary reply");
    if (FrameStatus s = w->receive(m, deadline, cancel); s != FrameStatus::kOk)
      return fail(s, "canary reply");
    WorkerResponse const r = parse_response(m);
    if (r.id != id) throw ProtocolError("canary reply has id " + std::to_string(r.id) +
                                        ", expected " + std::to_string(id));
    std::string problem = !r.ok           ? "failed: " + r.error
                          : r.exit_after  ? "asked to exit after replying"
                          : options_.canary_check ? options_.canary_check(r.payload)
                                                  : std::string();
    if (!problem.empty()) {
      why = who + " canary '" + options_.canary_type + "' " +
            (r.ok && !r.exit_after ? "was unhealthy: " : "") + problem;
      return StartResult::kFailed;
    }
  } catch (std::exception const& e) {
    // A broken frame or a canary check that threw: the worker is not fit for jobs.
    why = who + ": " + e.what();
    return StartResult::kFailed;
  }
  worker_ = std::move(w);
  return StartResult::kStarted;
}

bool WorkerSupervisor::ensure_worker(WorkerReply& out) {
  std::erase_if(lingering_, [](auto const& w) { return !w->alive(); });
  if (worker_ && worker_->alive()) return true;
  if (worker_) retire_worker(false);  // it died while idle; alive() has reaped it
  for (int attempt = 1;; ++attempt) {
    if (cancelled()) {
      out.status = Status::kInterrupted;
      out.message = "interrupted before a worker could start";
      return false;
    }
    auto const t = Clock::now();
    std::string why;
    StartResult const r = start_one(why);
    if (r == StartResult::kStarted) {
      consecutive_start_failures_ = 0;
      if (ever_started_) {
        ++respawn_count_;
        last_respawn_s_ = pending_kill_s_ + seconds_since(t);
      }
      ever_started_ = true;
      pending_kill_s_ = 0.0;
      return true;
    }
    if (r == StartResult::kInterrupted) {
      out.status = Status::kInterrupted;
      out.message = "interrupted while a worker was starting";
      return false;
    }
    ++consecutive_start_failures_;
    if (consecutive_start_failures_ >= options_.max_consecutive_failures) {
      stopped_ = true;
      stop_reason_ = "device " + std::to_string(device_index_) + " stopped: " +
                     std::to_string(consecutive_start_failures_) +
                     " fresh workers in a row failed to start; last: " + why;
      out = stopped_reply();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options_.retry_backoff_s * attempt));
  }
}

bool WorkerSupervisor::start() {
  if (stopped_) return false;
  WorkerReply ignored;
  return ensure_worker(ignored);
}

WorkerReply WorkerSupervisor::call(std::string const& type, json const& payload,
                                   double deadline_s) {
  WorkerReply out;
  if (stopped_) return stopped_reply();
  if (!ensure_worker(out)) return out;

  auto const t0 = Clock::now();
  Deadline const deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline_s));
  auto const cancel = [this] { return cancelled(); };
  std::string const who = "worker pid " + std::to_string(worker_->pid());
  std::uint64_t const id = ++next_id_;

  // Ends the call with the worker gone: killed (timeout, interrupt, broken protocol) or found
  // dead (crash). Either way it is reaped before we return.
  auto end_with = [&](Status status, std::string message, bool kill_first) {
    retire_worker(kill_first);
    ++consecutive_job_failures_;
    out.status = status;
    out.message = std::move(message);
    out.worker_replaced = true;
    out.elapsed_s = seconds_since(t0);
    return out;
  };
  auto on_frame = [&](FrameStatus s) {
    if (s == FrameStatus::kTimeout)
      return end_with(Status::kTimeout,
                      "no reply within " + seconds_text(deadline_s) + "; " + who +
                          " and its process group killed",
                      true);
    if (s == FrameStatus::kCancelled)
      return end_with(Status::kInterrupted,
                      "interrupted by signal " + std::to_string(interrupt_signal()) + "; " + who +
                          " killed",
                      true);
    // EOF: the worker is dying or dead; give it a moment to finish so we can say how.
    if (worker_->wait_exit(kExitAfterEofS))
      return end_with(Status::kCrash, who + " " + worker_->describe_exit() + " during '" + type +
                                          "' job",
                      false);
    return end_with(Status::kCrash,
                    who + " closed its pipes during '" + type + "' job but did not exit; killed",
                    true);
  };

  try {
    WorkerRequest const request{id, type, payload};
    if (FrameStatus s = worker_->send(to_message(request), deadline, cancel); s != FrameStatus::kOk)
      return on_frame(s);
    json m;
    if (FrameStatus s = worker_->receive(m, deadline, cancel); s != FrameStatus::kOk)
      return on_frame(s);
    WorkerResponse r = parse_response(m);
    if (r.id != id)
      throw ProtocolError("reply has id " + std::to_string(r.id) + ", expected " +
                          std::to_string(id));
    out.status = r.ok ? Status::kOk : Status::kError;
    out.payload = std::move(r.payload);
    out.message = std::move(r.error);
    if (r.exit_after) {
      // A sticky fault: the worker exits by itself after replying; make sure of it.
      auto const t = Clock::now();
      if (!worker_->wait_exit(options_.exit_grace_s)) worker_->kill(kReapTimeoutS);
      retire_worker(false);
      pending_kill_s_ = seconds_since(t);
      ++consecutive_job_failures_;
      out.worker_replaced = true;
    } else {
      consecutive_job_failures_ = 0;
    }
    out.elapsed_s = seconds_since(t0);
    return out;
  } catch (ProtocolError const& e) {
    return end_with(Status::kCrash, who + " broke the protocol (" + e.what() + "); killed", true);
  } catch (Error const& e) {
    return end_with(Status::kCrash, who + " pipe failed (" + e.what() + "); killed", true);
  }
}

}  // namespace gemmtune
