// Dry run over the compile pool.
#include "tuner/search/dry_run.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>

#include "src/core/error.hpp"
#include "src/core/even_sample.hpp"
#include "tuner/worker/interrupt.hpp"

namespace gemmtune {

DryRunReport dry_run(std::vector<Problem> const& problems, std::vector<Family const*> const& families,
                     std::string const& arch, CompileFn const& compile, long long max_configs,
                     SearchProgress* progress, bool record_configs) {
  auto const start = std::chrono::steady_clock::now();
  std::optional<DeviceLimits> limits = arch_limits(arch);
  if (!limits) {
    throw UsageError("bad arch '" + arch + "': expected one of " + std::string(known_archs()));
  }
  // Nothing to compile is the caller's mistake, not an empty report: say why.
  Precision const precision = problems.front().precision;
  std::string too_new;  // the families with kernels of the precision, all for newer archs
  bool any = false, others = false;
  for (Family const* f : families) {
    if (!f->supports(precision)) {
      others = true;
    } else if (arch_number(arch) < f->min_arch()) {
      too_new += std::string(too_new.empty() ? "" : "; ") + std::string(f->name()) + " needs sm_" +
                 std::to_string(f->min_arch()) + " or newer";
    } else {
      any = true;
    }
  }
  if (!any && !families.empty()) {
    std::string const name(to_string(precision));
    std::string why = is_fp8(precision) && arch_number(arch) < 89
                          ? "FP8 tensor cores need sm_89 or later"
                          : "";
    if (!too_new.empty()) why += (why.empty() ? "" : "; ") + too_new;
    if (others) why += (why.empty() ? "" : "; ") + std::string(too_new.empty() ? "the" : "the other") +
                       " families have no " + name + " kernels";
    throw UsageError("no kernel family of this search compiles " + name + " for " + arch + ": " +
                     why);
  }
  DryRunReport report;
  report.arch = arch;
  report.problems = problems;
  for (Family const* f : families) {
    DryRunFamily fr;
    fr.family = std::string(f->name());
    if (!f->supports(problems.front().precision) || arch_number(arch) < f->min_arch()) {
      continue;
    }
    for (Problem const& raw : problems) {
      Problem const problem = raw.resolved();
      int pruned = 0;
      std::vector<std::pair<KernelConfig, std::string>> rejected;
      auto cands = valid_candidates({f}, problem, *limits, &pruned, &fr.prune_reasons,
                                    record_configs ? &rejected : nullptr);
      std::string const described = problem.describe();
      int const valid = static_cast<int>(cands.size());
      if (max_configs > 0 && static_cast<long long>(cands.size()) > max_configs) {
        std::vector<std::size_t> const keep =
            even_sample(cands.size(), static_cast<std::size_t>(max_configs));
        std::vector<std::pair<Family const*, KernelConfig>> sample;
        std::size_t k = 0;
        for (std::size_t i = 0; i < cands.size(); ++i) {
          if (k < keep.size() && keep[k] == i) {
            sample.push_back(std::move(cands[i]));
            ++k;
          } else if (record_configs) {
            report.configs.push_back({described, cands[i].second.id(), "not_compiled", 0, 0,
                                      "valid; outside the sample of " +
                                          std::to_string(max_configs) +
                                          " (--whole-space compiles every config)"});
          }
        }
        cands = std::move(sample);
      }
      for (auto& [cfg, why] : rejected) {
        report.configs.push_back({described, cfg.id(), "rejected", 0, 0, std::move(why)});
      }
      fr.valid += valid;
      fr.candidates += static_cast<int>(cands.size());
      fr.pruned += pruned;
      int const total = static_cast<int>(cands.size());
      if (progress) progress->compile_started(fr.family, problem, total, valid);
      int spilling = 0, failed = 0;
      std::deque<std::future<CompileResult>> inflight;
      std::size_t next = 0, done = 0;
      while (done < cands.size()) {
        while (next < cands.size() && inflight.size() < 16) {
          inflight.push_back(compile(f->compile_request(cands[next].second, problem, arch)));
          ++next;
        }
        CompileResult r = inflight.front().get();
        inflight.pop_front();
        std::string const id = cands[done].second.id();
        ++done;
        fr.compile_s += r.compile_ms / 1000.0;
        if (!r.ok) {
          ++fr.failed;
          if (progress) progress->compile_done(static_cast<int>(done), total, spilling, ++failed);
          if (fr.first_error.empty()) fr.first_error = r.log.substr(0, 400);
          if (record_configs) {
            report.configs.push_back({described, id, "compile_error", 0, 0, r.log.substr(0, 400)});
          }
          continue;
        }
        ++fr.compiled;
        int spills = 0, regs = 0;
        for (auto const& k : r.resources) {
          spills += k.spill_loads + k.spill_stores;
          regs = std::max(regs, k.registers);
        }
        if (spills > 0) {
          ++fr.spilling;
          ++spilling;
        }
        if (progress) progress->compile_done(static_cast<int>(done), total, spilling, failed);
        if (record_configs) {
          report.configs.push_back({described, id, spills > 0 ? "spills" : "ok", regs, spills, {}});
        }
        if (fr.min_registers == 0 || regs < fr.min_registers) fr.min_registers = regs;
        fr.max_registers = std::max(fr.max_registers, regs);
        if (interrupted()) break;
      }
      // Interrupted, the compiles in flight are abandoned (their results go unread; the pool
      // drops what it has not started), so the summary comes within a compile, not sixteen.
      if (interrupted()) break;
      for (auto& fut : inflight) fut.wait();
    }
    report.families.push_back(fr);
    if (interrupted()) break;
  }
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.interrupted = interrupted();
  return report;
}

}  // namespace gemmtune
