// JSON form of PowerFigures: every field, so a reader can tell 0 W from a missing key.
#include "core/power_figures.hpp"

namespace gemmtune {

void to_json(nlohmann::json& j, PowerFigures const& v) {
  j = nlohmann::json{{"energy_mj", v.energy_mj},         {"power_w", v.power_w},
                     {"sm_clock_mhz", v.sm_clock_mhz},   {"mem_clock_mhz", v.mem_clock_mhz},
                     {"temperature_c", v.temperature_c}, {"clock_events", v.clock_events}};
}
void from_json(nlohmann::json const& j, PowerFigures& v) {
  j.at("energy_mj").get_to(v.energy_mj);
  j.at("power_w").get_to(v.power_w);
  j.at("sm_clock_mhz").get_to(v.sm_clock_mhz);
  j.at("mem_clock_mhz").get_to(v.mem_clock_mhz);
  j.at("temperature_c").get_to(v.temperature_c);
  j.at("clock_events").get_to(v.clock_events);
}

}  // namespace gemmtune
