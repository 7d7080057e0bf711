// Descriptor of ladder/blocktile_1d.cuh: shared-memory tiles, TM results per thread along M.
#include "src/kernels/ladder_families.hpp"
#include "src/kernels/ladder_family.hpp"

namespace gemmtune {
namespace {

class Blocktile1dFamily final : public LadderFamily {
 public:
  Blocktile1dFamily() : LadderFamily("blocktile_1d") {}
  std::string_view description() const override {
    return "ladder 4: 1-D register blocking, TM results per thread down a column of C";
  }
  std::vector<ParamSpec> params() const override {
    return {{"BM", {32, 64, 128}, "rows of C per block"},
            {"BN", {32, 64, 128}, "columns of C per block"},
            {"BK", {8, 16}, "depth of the K slice staged per step"},
            {"TM", {4, 8, 16}, "results per thread along M"}};
  }
  std::vector<Constraint> constraints() const override {
    // Every TM (≤ 16) divides every BM (≥ 32), all powers of two, and TM accumulators never
    // approach the register ceiling, so only the grid can rule a config out.
    return {grid_fits()};
  }
  int threads(KernelConfig const& cfg) const override {
    return static_cast<int>(cfg.at("BM") * cfg.at("BN") / cfg.at("TM"));
  }
  std::int64_t tile_m(KernelConfig const& cfg) const override { return cfg.at("BM"); }
  std::int64_t tile_n(KernelConfig const& cfg) const override { return cfg.at("BN"); }
  std::int64_t smem_floats(KernelConfig const& cfg) const override {
    return cfg.at("BK") * (cfg.at("BM") + cfg.at("BN"));
  }
};

}  // namespace

Family const& blocktile_1d_family() {
  static Blocktile1dFamily const family;
  return family;
}

}  // namespace gemmtune
