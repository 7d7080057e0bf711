// Descriptor of ladder/warptile.cuh: block tile → warp tiles → WMITER×WNITER sub-tiles → TM×TN
// thread patches, float4 access as in stage 6; needs 16-byte alignment.
#include <algorithm>

#include "src/kernels/ladder_families.hpp"
#include "src/kernels/ladder_family.hpp"

namespace gemmtune {
namespace {

constexpr std::int64_t kWarpSize = 32;

/// Sub-tiles along M per warp (WMITER), or 0 when the warp's 32 threads cannot cover WM×WN
/// with whole TM×TN patches in WNITER columns of sub-tiles.
std::int64_t wm_iters(KernelConfig const& c) {
  std::int64_t const per_pass = kWarpSize * c.at("TM") * c.at("TN") * c.at("WNITER");
  std::int64_t const area = c.at("WM") * c.at("WN");
  return area % per_pass == 0 ? area / per_pass : 0;
}

class WarptileFamily final : public LadderFamily {
 public:
  WarptileFamily() : LadderFamily("warptile") {}
  std::string_view description() const override {
    return "ladder 7: warp tiling (block → warp → thread tiles), float4 access (needs 16-byte "
           "alignment)";
  }
  std::vector<ParamSpec> params() const override {
    return {{"BM", {64, 128, 256}, "rows of C per block"},
            {"BN", {64, 128, 256}, "columns of C per block"},
            {"BK", {8, 16, 32}, "depth of the K slice staged per step"},
            {"WM", {32, 64, 128}, "rows of C per warp"},
            {"WN", {32, 64, 128}, "columns of C per warp"},
            {"WNITER", {1, 2, 4}, "warp sub-tiles along N"},
            {"TM", {4, 8}, "rows of a thread's patch per sub-tile"},
            {"TN", {4, 8}, "columns of a thread's patch per sub-tile"},
            {"NUM_THREADS", {128, 256}, "threads per block"}};
  }
  std::vector<Constraint> constraints() const override {
    return {vec4_alignment(),
            {"warp_tiles",
             [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
               std::int64_t const bm = c.at("BM"), bn = c.at("BN"), wm = c.at("WM"),
                                  wn = c.at("WN"), t = c.at("NUM_THREADS");
               if (bm % wm != 0 || bn % wn != 0) {
                 return "the " + std::to_string(wm) + "×" + std::to_string(wn) +
                        " warp tile does not divide the " + std::to_string(bm) + "×" +
                        std::to_string(bn) + " block tile";
               }
               std::int64_t const warps = (bm / wm) * (bn / wn);
               if (warps * kWarpSize == t) return std::string();
               return "(BM/WM)·(BN/WN) = " + std::to_string(warps) +
                      " warp tiles, but NUM_THREADS=" + std::to_string(t) + " gives " +
                      std::to_string(t / kWarpSize) + " warps";
             }},
            {"warp_subtiles",
             [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
               std::int64_t const wmi = wm_iters(c);
               std::int64_t const wm = c.at("WM"), wn = c.at("WN"), wni = c.at("WNITER"),
                                  tm = c.at("TM"), tn = c.at("TN");
               if (wmi == 0) {
                 return "WM·WN = " + std::to_string(wm * wn) +
                        " is not a positive multiple of 32·TM·TN·WNITER = " +
                        std::to_string(kWarpSize * tm * tn * wni) +
                        " (each of a warp's 32 threads takes whole TM×TN patches)";
               }
               if (wm % wmi != 0 || (wm / wmi) % tm != 0) {
                 return "WM=" + std::to_string(wm) + " does not split into WMITER=" +
                        std::to_string(wmi) + " sub-tiles of whole TM=" + std::to_string(tm) +
                        " rows";
               }
               if (wn % wni != 0 || (wn / wni) % tn != 0) {
                 return "WN=" + std::to_string(wn) + " does not split into WNITER=" +
                        std::to_string(wni) + " sub-tiles of whole TN=" + std::to_string(tn) +
                        " columns";
               }
               return std::string();
             }},
            {"load_coverage",
             [](KernelConfig const& c, Problem const&, DeviceLimits const&) {
               std::int64_t const bk = c.at("BK"), t = c.at("NUM_THREADS");
               for (char const* tile : {"BM", "BN"}) {
                 std::int64_t const vecs = c.at(tile) * bk / 4;
                 if (vecs % t != 0) {
                   return std::string(tile) + "·BK/4 = " + std::to_string(vecs) +
                          " float4 loads per step do not split evenly over NUM_THREADS=" +
                          std::to_string(t) + " (the seed gives every thread the same loads)";
                 }
               }
               return std::string();
             }},
            register_estimate(
                [this](KernelConfig const& c) {
                  double const wmi = static_cast<double>(std::max<std::int64_t>(wm_iters(c), 1));
                  return static_cast<double>(c.at("WM") * c.at("WN") / kWarpSize) +
                         wmi * static_cast<double>(c.at("TM")) +
                         static_cast<double>(c.at("WNITER") * c.at("TN")) + staged_per_thread(c) +
                         24;
                },
                "WM·WN/32 accumulators + WMITER·TM + WNITER·TN operands + the elements it stages "
                "per step + 24"),
            grid_fits()};
  }
  int threads(KernelConfig const& cfg) const override {
    return static_cast<int>(cfg.at("NUM_THREADS"));
  }
  std::int64_t tile_m(KernelConfig const& cfg) const override { return cfg.at("BM"); }
  std::int64_t tile_n(KernelConfig const& cfg) const override { return cfg.at("BN"); }
  std::int64_t smem_floats(KernelConfig const& cfg) const override {
    return cfg.at("BK") * (cfg.at("BM") + cfg.at("BN"));
  }
};

}  // namespace

Family const& warptile_family() {
  static WarptileFamily const family;
  return family;
}

}  // namespace gemmtune
