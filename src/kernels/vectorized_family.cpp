// Descriptor of ladder/vectorized.cuh: stage 5 with float4 global and shared-memory access and
// A transposed in shared memory; needs 16-byte alignment.
#include "src/kernels/ladder_families.hpp"
#include "src/kernels/ladder_family.hpp"

namespace gemmtune {
namespace {

class VectorizedFamily final : public LadderFamily {
 public:
  VectorizedFamily() : LadderFamily("vectorized") {}
  std::string_view description() const override {
    return "ladder 6: 2-D register blocking with float4 loads/stores, A transposed in shared "
           "memory (needs 16-byte alignment)";
  }
  std::vector<ParamSpec> params() const override {
    return {{"BM", {32, 64, 128}, "rows of C per block"},
            {"BN", {32, 64, 128}, "columns of C per block"},
            {"BK", {8, 16}, "depth of the K slice staged per step"},
            {"TM", {4, 8, 16}, "rows of the thread's patch (float4 reads of A)"},
            {"TN", {4, 8, 16}, "columns of the thread's patch (float4 reads of B, stores of C)"}};
  }
  std::vector<Constraint> constraints() const override {
    // The template reads full float4 vectors only where all four elements lie inside the
    // matrix and falls back to scalar reads on the edge, so ragged M, N, K need no constraint;
    // only the alignment of pointers and leading dimensions does.
    return {vec4_alignment(), register_estimate(
                [this](KernelConfig const& c) {
                  double const tm = c.at("TM"), tn = c.at("TN");
                  return tm * tn + tm + tn + staged_per_thread(c) + 24;
                },
                "TM·TN accumulators + TM + TN operands + the elements it stages per step + 24"),
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

Family const& vectorized_family() {
  static VectorizedFamily const family;
  return family;
}

}  // namespace gemmtune
