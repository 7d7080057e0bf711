// Descriptor of ladder/naive.cuh: one thread per element of C, threads walking down columns.
#include "src/kernels/ladder_families.hpp"
#include "src/kernels/ladder_family.hpp"

namespace gemmtune {
namespace {

class NaiveFamily final : public LadderFamily {
 public:
  NaiveFamily() : LadderFamily("naive") {}
  std::string_view description() const override {
    return "ladder 1: one thread per element of C, uncoalesced (consecutive threads take rows)";
  }
  std::vector<ParamSpec> params() const override {
    return {{"BM", {8, 16, 32}, "rows of C per block"},
            {"BN", {8, 16, 32}, "columns of C per block"}};
  }
  std::vector<Constraint> constraints() const override { return {grid_fits()}; }
  int threads(KernelConfig const& cfg) const override {
    return static_cast<int>(cfg.at("BM") * cfg.at("BN"));
  }
  std::int64_t tile_m(KernelConfig const& cfg) const override { return cfg.at("BM"); }
  std::int64_t tile_n(KernelConfig const& cfg) const override { return cfg.at("BN"); }
  std::int64_t smem_floats(KernelConfig const&) const override { return 0; }
};

}  // namespace

Family const& naive_family() {
  static NaiveFamily const family;
  return family;
}

}  // namespace gemmtune
