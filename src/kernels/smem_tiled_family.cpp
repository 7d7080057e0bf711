// Descriptor of ladder/smem_tiled.cuh: BM×BK and BK×BN operand tiles staged in shared memory,
// one result per thread.
#include "src/kernels/ladder_families.hpp"
#include "src/kernels/ladder_family.hpp"

namespace gemmtune {
namespace {

class SmemTiledFamily final : public LadderFamily {
 public:
  SmemTiledFamily() : LadderFamily("smem_tiled") {}
  std::string_view description() const override {
    return "ladder 3: operand tiles staged in shared memory, one result per thread";
  }
  std::vector<ParamSpec> params() const override {
    return {{"BM", {8, 16, 32}, "rows of C per block"},
            {"BN", {8, 16, 32, 64}, "columns of C per block"},
            {"BK", {8, 16, 32, 64}, "depth of the K slice staged per step"}};
  }
  std::vector<Constraint> constraints() const override { return {grid_fits()}; }
  int threads(KernelConfig const& cfg) const override {
    return static_cast<int>(cfg.at("BM") * cfg.at("BN"));
  }
  std::int64_t tile_m(KernelConfig const& cfg) const override { return cfg.at("BM"); }
  std::int64_t tile_n(KernelConfig const& cfg) const override { return cfg.at("BN"); }
  std::int64_t smem_floats(KernelConfig const& cfg) const override {
    return cfg.at("BK") * (cfg.at("BM") + cfg.at("BN"));
  }
};

}  // namespace

Family const& smem_tiled_family() {
  static SmemTiledFamily const family;
  return family;
}

}  // namespace gemmtune
