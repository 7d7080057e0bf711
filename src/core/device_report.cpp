// DeviceReport's JSON form, as the worker's hello carries it.
#include "src/core/device_report.hpp"

#include <nlohmann/json.hpp>

namespace gemmtune {

void to_json(nlohmann::json& j, DeviceReport const& v) {
  j = nlohmann::json{
      {"present", v.present},
      {"reason", v.reason},
      {"gpu",
       {{"name", v.gpu.name},
        {"cc_major", v.gpu.cc_major},
        {"cc_minor", v.gpu.cc_minor},
        {"sm_count", v.gpu.sm_count}}},
      {"limits",
       {{"arch", v.limits.arch},
        {"max_threads_per_block", v.limits.max_threads_per_block},
        {"max_smem_per_block_optin", v.limits.max_smem_per_block_optin},
        {"max_smem_per_sm", v.limits.max_smem_per_sm},
        {"regs_per_sm", v.limits.regs_per_sm},
        {"max_regs_per_thread", v.limits.max_regs_per_thread},
        {"sm_count", v.limits.sm_count},
        {"l2_bytes", v.limits.l2_bytes}}},
      {"driver", v.driver},
      {"cuda_runtime", v.cuda_runtime},
      {"cublas", v.cublas},
      {"clock_mhz", v.clock_mhz},
      {"memory_clock_mhz", v.memory_clock_mhz},
      {"memory_bytes", v.memory_bytes}};
}

void from_json(nlohmann::json const& j, DeviceReport& v) {
  j.at("present").get_to(v.present);
  j.at("reason").get_to(v.reason);
  auto const& g = j.at("gpu");
  g.at("name").get_to(v.gpu.name);
  g.at("cc_major").get_to(v.gpu.cc_major);
  g.at("cc_minor").get_to(v.gpu.cc_minor);
  g.at("sm_count").get_to(v.gpu.sm_count);
  auto const& l = j.at("limits");
  l.at("arch").get_to(v.limits.arch);
  l.at("max_threads_per_block").get_to(v.limits.max_threads_per_block);
  l.at("max_smem_per_block_optin").get_to(v.limits.max_smem_per_block_optin);
  l.at("max_smem_per_sm").get_to(v.limits.max_smem_per_sm);
  l.at("regs_per_sm").get_to(v.limits.regs_per_sm);
  l.at("max_regs_per_thread").get_to(v.limits.max_regs_per_thread);
  l.at("sm_count").get_to(v.limits.sm_count);
  l.at("l2_bytes").get_to(v.limits.l2_bytes);
  j.at("driver").get_to(v.driver);
  j.at("cuda_runtime").get_to(v.cuda_runtime);
  j.at("cublas").get_to(v.cublas);
  j.at("clock_mhz").get_to(v.clock_mhz);
  j.at("memory_clock_mhz").get_to(v.memory_clock_mhz);
  j.at("memory_bytes").get_to(v.memory_bytes);
}

Provenance vendor_provenance(DeviceReport const& device) {
  Provenance prov;
  prov.driver = device.driver;
  prov.cuda_runtime = device.cuda_runtime;
  prov.cublas = device.cublas;
  prov.gemmtune_version = std::string(gemmtune_version());
  return prov;
}

}  // namespace gemmtune
