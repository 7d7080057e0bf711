// Trial output forms.
#include "cli/trial_json.hpp"

#include "src/core/eval_job.hpp"

namespace gemmtune {

nlohmann::json trial_to_json(Trial const& t) {
  return {{"id", t.id},
          {"search_id", t.search_id},
          {"gpu", t.gpu.describe()},
          {"problem", t.problem},
          {"kernel", t.config.id()},
          {"disposition", to_string(t.disposition)},
          {"reason", t.reason},
          {"time_ms", t.time_ms},
          {"min_ms", t.min_ms},
          {"spread", {{"lo_ms", t.spread_lo_ms},
                      {"hi_ms", t.spread_hi_ms},
                      {"rounds", t.spread_rounds}}},
          {"tflops", t.tflops},
          {"cublas_ms", t.cublas_ms},
          {"cublaslt_ms", t.cublaslt_ms},
          {"max_abs_err", t.max_abs_err},
          {"max_err_ratio", t.max_err_ratio},
          {"rel_fro_err", t.rel_fro_err},
          {"exact_mismatches", t.exact_mismatches},
          {"registers", t.registers},
          {"spill_bytes", t.spill_bytes},
          {"smem_bytes", t.smem_bytes},
          {"compile_ms", t.compile_ms},
          {"provenance",
           {{"driver", t.provenance.driver},
            {"cuda_runtime", t.provenance.cuda_runtime},
            {"nvrtc", t.provenance.nvrtc},
            {"cublas", t.provenance.cublas},
            {"gemmtune", t.provenance.gemmtune_version},
            {"template_hash", t.provenance.template_hash},
            {"compile_options", t.provenance.compile_options}}},
          {"created_at", t.created_at},
          {"board", {{"sm_clock_mhz", t.board_sm_clock_mhz},
                     {"temperature_c", t.board_temperature_c}}}};
}

TextTable trial_table() {
  return TextTable({"id", "problem", "kernel", "result", "time", "spread", "TFLOP/s",
                    "vs cuBLAS", "vs cuBLASLt", "regs", "reason"});
}

void add_trial_row(TextTable& table, Trial const& t) {
  bool const ok = t.disposition == Disposition::kOk;
  std::string reason = t.reason;
  if (auto nl = reason.find('\n'); nl != std::string::npos) reason.resize(nl);
  if (reason.size() > 70) reason = reason.substr(0, 67) + "...";
  table.add({std::to_string(t.id), t.problem.describe(), t.config.id(),
             std::string(to_string(t.disposition)), ok ? format_ms(t.time_ms) : "-",
             ok ? spread_text(t.spread_lo_ms, t.spread_hi_ms, t.time_ms, t.spread_rounds) : "-",
             ok ? fixed(t.tflops, 2) : "-", ok ? ratio(t.cublas_ms, t.time_ms) : "-",
             ok ? ratio(t.cublaslt_ms, t.time_ms) : "-", std::to_string(t.registers), reason});
}

}  // namespace gemmtune
