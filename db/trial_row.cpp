// Binding of one trial row, and reading the problem columns every row carries.
#include "db/trial_row.hpp"

#include <string>

namespace gemmtune {

char const* const kInsertTrialSql =
    "INSERT INTO trials (search_id, gpu_id, m, n, k, precision, layout, align, kernel_id, family, "
    "provenance_id, attempt, disposition, reason, time_ms, min_ms, tflops, cublas_ms, "
    "cublaslt_ms, max_abs_err, max_err_ratio, rel_fro_err, exact_mismatches, registers, "
    "spill_bytes, smem_bytes, compile_ms, created_at, spread_lo_ms, spread_hi_ms, spread_rounds, "
    "board_sm_clock_mhz, board_temperature_c) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)";

Problem read_problem(Statement const& s, int first) {
  Problem p;
  p.m = s.column_int(first);
  p.n = s.column_int(first + 1);
  p.k = s.column_int(first + 2);
  p.precision = parse_precision(s.column_text(first + 3));
  p.layout = parse_layout(s.column_text(first + 4));
  p.align = static_cast<int>(s.column_int(first + 5));
  return p;
}

GpuIdentity read_gpu(Statement const& s, int first) {
  return GpuIdentity{s.column_text(first), static_cast<int>(s.column_int(first + 1)),
                     static_cast<int>(s.column_int(first + 2)),
                     static_cast<int>(s.column_int(first + 3))};
}

Provenance read_provenance(Statement const& s, int first) {
  Provenance p;
  p.driver = s.column_text(first);
  p.cuda_runtime = s.column_text(first + 1);
  p.nvrtc = s.column_text(first + 2);
  p.cublas = s.column_text(first + 3);
  p.gemmtune_version = s.column_text(first + 4);
  p.template_hash = s.column_text(first + 5);
  p.compile_options = s.column_text(first + 6);
  return p;
}

void bind_trial_row(Statement& s, Trial const& t, std::string_view kernel_id,
                    TrialRowKeys const& keys) {
  Problem const p = t.problem.resolved();  // a row always carries its alignment class
  if (keys.search_id > 0) {
    s.bind(1, keys.search_id);
  } else {
    s.bind_null(1);
  }
  s.bind(2, keys.gpu_id)
      .bind(3, p.m)
      .bind(4, p.n)
      .bind(5, p.k)
      .bind(6, to_string(p.precision))
      .bind(7, to_string(p.layout))
      .bind(8, p.align)
      .bind(9, kernel_id)
      .bind(10, std::string_view(t.config.family))
      .bind(11, keys.provenance_id)
      .bind(12, keys.attempt)
      .bind(13, to_string(t.disposition))
      .bind(14, std::string_view(t.reason))
      .bind(15, t.time_ms)
      .bind(16, t.min_ms)
      .bind(17, t.tflops)
      .bind(18, t.cublas_ms)
      .bind(19, t.cublaslt_ms)
      .bind(20, t.max_abs_err)
      .bind(21, t.max_err_ratio)
      .bind(22, t.rel_fro_err)
      .bind(23, t.exact_mismatches)
      .bind(24, t.registers)
      .bind(25, t.spill_bytes)
      .bind(26, t.smem_bytes)
      .bind(27, t.compile_ms)
      .bind(28, t.created_at > 0 ? t.created_at : keys.created_at)
      .bind(29, t.spread_lo_ms)
      .bind(30, t.spread_hi_ms)
      .bind(31, t.spread_rounds)
      .bind(32, t.board_sm_clock_mhz)
      .bind(33, t.board_temperature_c);
}

}  // namespace gemmtune
