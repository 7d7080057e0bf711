// The pick among timed candidates (DESIGN.md §5, "noise is part of the result"): figures within
// the noise band of the fastest are ties, broken by a fixed rule, so two searches of one shape
// export the same winner however the noise fell.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "src/core/trial.hpp"

namespace gemmtune {

/// One candidate's figure with its spread (0 where none was recorded).
struct RankedFigure {
  std::string id;        ///< canonical kernel id
  double time_ms = 0.0;  ///< the figure (median), > 0
  double lo_ms = 0.0;    ///< fastest round (or repeat)
  double hi_ms = 0.0;    ///< slowest round (or repeat)
  bool vendor = false;   ///< a vendor baseline (cuBLAS, cuBLASLt) rather than our kernel
  /// Timed side by side with the others (the final re-time's rounds, or a vendor baseline of
  /// those rounds): only such figures' noise is comparable, so only they can win a tie. A
  /// figure timed on its own (a quick search figure, an imported alternative) wins only by
  /// being the fastest.
  bool side_by_side = false;
};

/// The noise band, as a fraction of the fastest figure. Two searches of one shape on another
/// day, or a later process on the same board, put the same GEMM 1–3 % apart under the H200's
/// power cap (the board's temperature moves its clock), while a search's own rounds often read
/// tighter than that: a band taken from them (half the spread, once 0.5–2 %) made different
/// vendor algorithms 0.8–1 % apart flip between searches. One percent is also the most a tie
/// may cost: the pick then stays ≥ 0.99× the fastest vendor figure, the never-lose bound.
inline constexpr double kTieBand = 0.01;

/// Index of the pick among `figures` (times > 0): the fastest, unless others timed side by side
/// are within the noise band (time ≤ fastest · (1 + kTieBand)); then, among the fastest and
/// those, a vendor baseline first, then the smallest canonical id. Throws std::invalid_argument
/// when `figures` is empty.
std::size_t pick_with_ties(std::span<RankedFigure const> figures);

/// Index of the pick among the verified trials of one problem: pick_with_ties() over them, where
/// a trial re-timed in rounds (spread_rounds ≥ 2) was timed side by side. Figures of the final
/// re-time (the full protocol, in rounds interleaved with the baselines) are comparable with
/// each other; a quick figure of the search comes from a shorter protocol at another moment and
/// reads faster under the power cap. So where any trial was re-timed the pick is among those;
/// quick figures decide only problems never re-timed. What best(), export and the search's
/// summary all answer. Throws std::invalid_argument when `trials` is empty.
std::size_t pick_trial(std::span<Trial const> trials);

/// Of one problem's trials, newest first (as a store returns them), the newest trial of each
/// config when it is verified: what pick_trial() chooses among. A config whose newest trial
/// failed is left out, whatever it measured before.
std::vector<Trial> newest_verified(std::span<Trial const> newest_first);

}  // namespace gemmtune
