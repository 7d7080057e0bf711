// Descriptor of ladder/blocktile_2d.cuh: shared-memory tiles, a TM×TN patch of C per thread.
#include "src/kernels/ladder_families.hpp"
#include "src/kernels/ladder_family.hpp"

namespace gemmtune {
namespace {

class Blocktile2dFamily final : public LadderFamily {
 public:
  Blocktile2dFamily() : LadderFamily("blocktile_2d") {}
  std::string_view description() const override {
    return "ladder 5: 2-D register blocking, a TM×TN outer-product patch of C per thread";
  }
  std::vector<ParamSpec> params() const override {
    return {{"BM", {32, 64, 128}, "rows of C per block"},
            {"BN", {32, 64, 128}, "columns of C per block"},
            {"BK", {8, 16}, "depth of the K slice staged per step"},
            {"TM", {4, 8}, "rows of the thread's patch"},
            {"TN", {4, 8}, "columns of the thread's patch"}};
  }
  std::vector<Constraint> constraints() const override {
    // TM and TN (≤ 16) always divide BM and BN (≥ 32), all powers of two; the template
    // static_asserts it.
    return {register_estimate(
                [this](KernelConfig const& c) {
                  double const tm = c.at("TM"), tn = c.at("TN");
                  return tm * tn + tm + tn + 5 * staged_per_thread(c);
                },
                "TM·TN accumulators + TM + TN operands + 5 per element the thread stages per "
                "step: its guarded loads are unrolled and their addresses kept live"),
            grid_fits()};
  }
  int threads(KernelConfig const& cfg) const override {
    return static_cast<int>((cfg.at("BM") / cfg.at("TM")) * (cfg.at("BN") / cfg.at("TN")));
  }
  std::int64_t tile_m(KernelConfig const& cfg) const override { return cfg.at("BM"); }
  std::int64_t tile_n(KernelConfig const& cfg) const override { return cfg.at("BN"); }
  std::int64_t smem_floats(KernelConfig const& cfg) const override {
    return cfg.at("BK") * (cfg.at("BM") + cfg.at("BN"));
  }
};

}  // namespace

Family const& blocktile_2d_family() {
  static Blocktile2dFamily const family;
  return family;
}

}  // namespace gemmtune
