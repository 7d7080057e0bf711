// Reading the journal the scripted search writes ("eval <id>" before a candidate runs,
// "stored <id>" after its trial is committed) and the test's own "run <n>" separators.
#pragma once

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gemmtune::reliability {

struct JournalRun {
  std::vector<std::string> evaluated;  ///< in order
  std::set<std::string> stored;
};

/// The journal split into runs at each "run <n>" line.
inline std::vector<JournalRun> read_journal(std::string const& path) {
  std::vector<JournalRun> runs;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("run ", 0) == 0) {
      runs.emplace_back();
    } else if (runs.empty()) {
      continue;
    } else if (line.rfind("eval ", 0) == 0) {
      runs.back().evaluated.push_back(line.substr(5));
    } else if (line.rfind("stored ", 0) == 0) {
      runs.back().stored.insert(line.substr(7));
    }
  }
  return runs;
}

}  // namespace gemmtune::reliability
