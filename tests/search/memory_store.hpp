// An in-memory TrialStore for search tests.
#pragma once

#include <algorithm>

#include "src/core/trial_store.hpp"

namespace gemmtune {

class MemoryStore : public TrialStore {
 public:
  std::int64_t begin_search(std::string const& arguments) override {
    searches.push_back({static_cast<std::int64_t>(searches.size() + 1), arguments, 1, 0, ""});
    return searches.back().id;
  }
  void finish_search(std::int64_t id, std::string const& phases) override {
    searches.at(static_cast<std::size_t>(id - 1)).finished_at = 2;
    searches.at(static_cast<std::size_t>(id - 1)).phase_times_json = phases;
  }
  std::int64_t record_trial(Trial const& t) override {
    trials.push_back(t);
    trials.back().id = static_cast<std::int64_t>(trials.size());
    return trials.back().id;
  }
  std::optional<Trial> find_trial(GpuIdentity const& gpu, Problem const& problem,
                                  KernelConfig const& config, Provenance const& prov) override {
    for (auto it = trials.rbegin(); it != trials.rend(); ++it) {
      if (it->gpu == gpu && it->problem == problem && it->config == config && it->provenance == prov) {
        return *it;
      }
    }
    return std::nullopt;
  }
  std::vector<Trial> trials_for(GpuIdentity const& gpu, Problem const& problem) override {
    std::vector<Trial> out;
    for (auto it = trials.rbegin(); it != trials.rend(); ++it) {
      if (it->gpu == gpu && it->problem == problem) out.push_back(*it);
    }
    return out;
  }
  std::vector<Problem> tuned_problems(GpuIdentity const& gpu, Precision precision) override {
    std::vector<Problem> out;
    for (Trial const& t : trials) {
      if (t.gpu == gpu && t.problem.precision == precision && t.disposition == Disposition::kOk &&
          std::find(out.begin(), out.end(), t.problem) == out.end()) {
        out.push_back(t.problem);
      }
    }
    return out;
  }
  void record_baseline(GpuIdentity const&, Problem const&, BaselineResult const& b,
                       Provenance const&) override {
    baselines.push_back(b);
  }
  std::optional<BaselineResult> find_baseline(GpuIdentity const&, Problem const&) override {
    if (baselines.empty()) return std::nullopt;
    return baselines.back();
  }

  void record_finished_problem(std::int64_t search_id, GpuIdentity const& gpu,
                               Problem const& problem, std::string const& settings) override {
    finished.push_back({search_id, gpu, problem.resolved(), settings});
  }
  std::optional<std::int64_t> finished_by(GpuIdentity const& gpu, Problem const& problem,
                                          std::string const& settings) override {
    for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
      if (it->gpu == gpu && it->problem == problem.resolved() && it->settings == settings) {
        return it->search_id;
      }
    }
    return std::nullopt;
  }

  struct Finished {
    std::int64_t search_id;
    GpuIdentity gpu;
    Problem problem;
    std::string settings;
  };
  std::vector<Finished> finished;
  std::vector<SearchRecord> searches;
  std::vector<Trial> trials;
  std::vector<BaselineResult> baselines;
};

}  // namespace gemmtune
