// JSON forms of the worker messages.
#include "src/core/eval_job.hpp"

#include "src/core/error.hpp"
#include "src/core/tensor_map_geometry.hpp"

namespace gemmtune {

using nlohmann::json;

void to_json(json& j, Problem const& v) {
  j = json{{"m", v.m}, {"n", v.n}, {"k", v.k}, {"precision", std::string(to_string(v.precision))},
           {"layout", std::string(to_string(v.layout))}, {"align", v.align}};
}
void from_json(json const& j, Problem& v) {
  j.at("m").get_to(v.m);
  j.at("n").get_to(v.n);
  j.at("k").get_to(v.k);
  v.precision = parse_precision(j.at("precision").get<std::string>());
  v.layout = parse_layout(j.at("layout").get<std::string>());
  j.at("align").get_to(v.align);
}

void to_json(json& j, LaunchPlan const& v) {
  json launches = json::array();
  for (auto const& l : v.launches) {
    launches.push_back({{"name_expression", l.name_expression},
                        {"lowered_name", l.lowered_name},
                        {"grid", {l.grid.x, l.grid.y, l.grid.z}},
                        {"block", {l.block.x, l.block.y, l.block.z}},
                        {"dynamic_smem", l.dynamic_smem},
                        {"takes_tensor_maps", l.takes_tensor_maps},
                        {"waits_for_prior_grids", l.waits_for_prior_grids}});
  }
  json maps = json::array();
  for (auto const& t : v.tensor_maps) {
    maps.push_back({{"operand", to_string(t.operand)},
                    {"box_rows", t.box_rows},
                    {"box_cols", t.box_cols},
                    {"swizzle_bytes", t.swizzle_bytes},
                    {"workspace_offset", t.workspace_offset},
                    {"padded_copy", t.padded_copy},
                    {"in_place_pitch", t.in_place_pitch}});
  }
  j = json{{"launches", launches},
           {"workspace_bytes", v.workspace_bytes},
           {"zero_workspace", v.zero_workspace},
           {"counter_bytes", v.counter_bytes},
           {"tensor_maps", maps}};
}
void from_json(json const& j, LaunchPlan& v) {
  v.launches.clear();
  for (auto const& l : j.at("launches")) {
    KernelLaunch k;
    l.at("name_expression").get_to(k.name_expression);
    l.at("lowered_name").get_to(k.lowered_name);
    auto const& g = l.at("grid");
    auto const& b = l.at("block");
    k.grid = {g.at(0).get<std::int64_t>(), g.at(1).get<std::int64_t>(), g.at(2).get<std::int64_t>()};
    k.block = {b.at(0).get<std::int64_t>(), b.at(1).get<std::int64_t>(),
               b.at(2).get<std::int64_t>()};
    l.at("dynamic_smem").get_to(k.dynamic_smem);
    l.at("takes_tensor_maps").get_to(k.takes_tensor_maps);
    l.at("waits_for_prior_grids").get_to(k.waits_for_prior_grids);
    v.launches.push_back(std::move(k));
  }
  j.at("workspace_bytes").get_to(v.workspace_bytes);
  j.at("zero_workspace").get_to(v.zero_workspace);
  j.at("counter_bytes").get_to(v.counter_bytes);
  v.tensor_maps.clear();
  for (auto const& t : j.at("tensor_maps")) {
    TensorMapSpec spec;
    std::string const operand = t.at("operand").get<std::string>();
    if (operand == "A") {
      spec.operand = TmaOperand::kA;
    } else if (operand == "B") {
      spec.operand = TmaOperand::kB;
    } else if (operand == "C") {
      spec.operand = TmaOperand::kC;
    } else {
      throw json::other_error::create(501, "tensor map operand '" + operand + "' is not A, B or C",
                                      &t);
    }
    t.at("box_rows").get_to(spec.box_rows);
    t.at("box_cols").get_to(spec.box_cols);
    t.at("swizzle_bytes").get_to(spec.swizzle_bytes);
    t.at("workspace_offset").get_to(spec.workspace_offset);
    spec.padded_copy = t.value("padded_copy", false);
    spec.in_place_pitch = t.value("in_place_pitch", 16);
    v.tensor_maps.push_back(spec);
  }
}

std::string_view to_string(TimingProtocol p) {
  return p == TimingProtocol::kStream ? "stream" : "graph";
}

TimingProtocol parse_timing_protocol(std::string_view text) {
  if (text == "graph") return TimingProtocol::kGraph;
  if (text == "stream") return TimingProtocol::kStream;
  throw UsageError("unknown timing protocol '" + std::string(text) +
                   "' (expected graph or stream)");
}

void to_json(json& j, TimingSpec const& v) {
  j = json{{"warmup_ms", v.warmup_ms},         {"target_ms", v.target_ms},
           {"repeats", v.repeats},             {"max_iterations", v.max_iterations},
           {"rotate_bytes", v.rotate_bytes},   {"early_stop_ms", v.early_stop_ms},
           {"protocol", to_string(v.protocol)}};
}
void from_json(json const& j, TimingSpec& v) {
  j.at("warmup_ms").get_to(v.warmup_ms);
  j.at("target_ms").get_to(v.target_ms);
  j.at("repeats").get_to(v.repeats);
  j.at("max_iterations").get_to(v.max_iterations);
  j.at("rotate_bytes").get_to(v.rotate_bytes);
  j.at("early_stop_ms").get_to(v.early_stop_ms);
  v.protocol = parse_timing_protocol(j.at("protocol").get<std::string>());
}

void to_json(json& j, EvalJob const& v) {
  j = json{{"problem", v.problem}, {"kernel_id", v.kernel_id}, {"cubin_path", v.cubin_path},
           {"plan", v.plan},       {"seed", v.seed},           {"timing", v.timing},
           {"exact_check", v.exact_check}, {"alpha", v.alpha}, {"beta", v.beta}};
}
void from_json(json const& j, EvalJob& v) {
  j.at("problem").get_to(v.problem);
  j.at("kernel_id").get_to(v.kernel_id);
  j.at("cubin_path").get_to(v.cubin_path);
  j.at("plan").get_to(v.plan);
  j.at("seed").get_to(v.seed);
  j.at("timing").get_to(v.timing);
  j.at("exact_check").get_to(v.exact_check);
  j.at("alpha").get_to(v.alpha);
  j.at("beta").get_to(v.beta);
}

void to_json(json& j, EvalResult const& v) {
  j = json{{"disposition", std::string(to_string(v.disposition))},
           {"reason", v.reason},
           {"median_ms", v.median_ms},
           {"min_ms", v.min_ms},
           {"max_ms", v.max_ms},
           {"protocol", to_string(v.protocol)},
           {"host_us_per_call", v.host_us_per_call},
           {"iterations", v.iterations},
           {"repeats", v.repeats},
           {"max_abs_err", v.max_abs_err},
           {"max_err_ratio", v.max_err_ratio},
           {"rel_fro_err", v.rel_fro_err},
           {"exact_mismatches", v.exact_mismatches},
           {"cuda_error", v.cuda_error},
           {"registers", v.registers},
           {"local_bytes", v.local_bytes},
           {"static_smem", v.static_smem}};
  if (!v.steps.empty()) j["steps"] = v.steps;
  if (v.power.present()) j["power"] = v.power;
}
void from_json(json const& j, EvalResult& v) {
  v.disposition = parse_disposition(j.at("disposition").get<std::string>());
  j.at("reason").get_to(v.reason);
  j.at("median_ms").get_to(v.median_ms);
  j.at("min_ms").get_to(v.min_ms);
  j.at("max_ms").get_to(v.max_ms);
  v.protocol = parse_timing_protocol(j.at("protocol").get<std::string>());
  j.at("host_us_per_call").get_to(v.host_us_per_call);
  j.at("iterations").get_to(v.iterations);
  j.at("repeats").get_to(v.repeats);
  j.at("max_abs_err").get_to(v.max_abs_err);
  j.at("max_err_ratio").get_to(v.max_err_ratio);
  j.at("rel_fro_err").get_to(v.rel_fro_err);
  j.at("exact_mismatches").get_to(v.exact_mismatches);
  j.at("cuda_error").get_to(v.cuda_error);
  j.at("registers").get_to(v.registers);
  j.at("local_bytes").get_to(v.local_bytes);
  j.at("static_smem").get_to(v.static_smem);
  v.steps.clear();
  if (auto const it = j.find("steps"); it != j.end()) it->get_to(v.steps);
  v.power = {};
  if (auto const it = j.find("power"); it != j.end()) it->get_to(v.power);
}

void to_json(json& j, BaselineJob const& v) {
  j = json{{"problem", v.problem}, {"seed", v.seed}, {"timing", v.timing}};
  if (!v.cublaslt_kernel.empty()) j["cublaslt_kernel"] = v.cublaslt_kernel;
  if (v.verify) j["verify"] = true;
}
void from_json(json const& j, BaselineJob& v) {
  j.at("problem").get_to(v.problem);
  j.at("seed").get_to(v.seed);
  j.at("timing").get_to(v.timing);
  v.cublaslt_kernel = j.value("cublaslt_kernel", std::string());
  v.verify = j.value("verify", false);
}

void to_json(json& j, BaselineResult const& v) {
  j = json{{"ok", v.ok},
           {"reason", v.reason},
           {"cublas_ms", v.cublas_ms},
           {"cublaslt_ms", v.cublaslt_ms},
           {"cublaslt_algo_index", v.cublaslt_algo_index},
           {"cublaslt_algos_tried", v.cublaslt_algos_tried},
           {"cublas_min_ms", v.cublas_min_ms},
           {"cublas_max_ms", v.cublas_max_ms},
           {"cublaslt_min_ms", v.cublaslt_min_ms},
           {"cublaslt_max_ms", v.cublaslt_max_ms},
           {"cublas_host_us", v.cublas_host_us},
           {"cublaslt_host_us", v.cublaslt_host_us},
           {"protocol", to_string(v.protocol)}};
  if (!v.cublaslt_kernel.empty()) j["cublaslt_kernel"] = v.cublaslt_kernel;
  if (!v.cublaslt_runners_up.empty()) j["cublaslt_runners_up"] = v.cublaslt_runners_up;
  if (v.cublas_verdict != Disposition::kSkipped || v.cublaslt_verdict != Disposition::kSkipped) {
    j["cublas_verdict"] = to_string(v.cublas_verdict);
    j["cublaslt_verdict"] = to_string(v.cublaslt_verdict);
    j["cublas_err_ratio"] = v.cublas_err_ratio;
    j["cublaslt_err_ratio"] = v.cublaslt_err_ratio;
    j["verdict_reason"] = v.verdict_reason;
  }
  if (!v.cublaslt_rejected.empty()) {
    json& rejected = j["cublaslt_rejected"] = json::array();
    for (VendorRejection const& r : v.cublaslt_rejected) {
      rejected.push_back({{"kernel", r.kernel}, {"err_ratio", r.err_ratio}, {"reason", r.reason}});
    }
  }
  if (v.cublas_power.present()) j["cublas_power"] = v.cublas_power;
  if (v.cublaslt_power.present()) j["cublaslt_power"] = v.cublaslt_power;
}
double fastest_vendor_ms(BaselineResult const& b) {
  double best = b.ok ? b.cublas_ms : 0.0;
  if (b.cublaslt_ms > 0.0 && (best <= 0.0 || b.cublaslt_ms < best)) best = b.cublaslt_ms;
  return best;
}

void to_json(json& j, CopyJob const& v) { j = json{{"bytes", v.bytes}, {"timing", v.timing}}; }
void from_json(json const& j, CopyJob& v) {
  j.at("bytes").get_to(v.bytes);
  j.at("timing").get_to(v.timing);
}
void to_json(json& j, CopyResult const& v) {
  j = json{{"ok", v.ok},           {"reason", v.reason}, {"bytes", v.bytes},
           {"median_ms", v.median_ms}, {"min_ms", v.min_ms}, {"max_ms", v.max_ms},
           {"protocol", to_string(v.protocol)}};
}
void from_json(json const& j, CopyResult& v) {
  j.at("ok").get_to(v.ok);
  j.at("reason").get_to(v.reason);
  j.at("bytes").get_to(v.bytes);
  j.at("median_ms").get_to(v.median_ms);
  j.at("min_ms").get_to(v.min_ms);
  j.at("max_ms").get_to(v.max_ms);
  v.protocol = parse_timing_protocol(j.at("protocol").get<std::string>());
}

void from_json(json const& j, BaselineResult& v) {
  j.at("ok").get_to(v.ok);
  j.at("reason").get_to(v.reason);
  j.at("cublas_ms").get_to(v.cublas_ms);
  j.at("cublaslt_ms").get_to(v.cublaslt_ms);
  j.at("cublaslt_algo_index").get_to(v.cublaslt_algo_index);
  j.at("cublaslt_algos_tried").get_to(v.cublaslt_algos_tried);
  j.at("cublas_min_ms").get_to(v.cublas_min_ms);
  j.at("cublas_max_ms").get_to(v.cublas_max_ms);
  j.at("cublaslt_min_ms").get_to(v.cublaslt_min_ms);
  j.at("cublaslt_max_ms").get_to(v.cublaslt_max_ms);
  j.at("cublas_host_us").get_to(v.cublas_host_us);
  j.at("cublaslt_host_us").get_to(v.cublaslt_host_us);
  v.protocol = parse_timing_protocol(j.at("protocol").get<std::string>());
  v.cublaslt_kernel = j.value("cublaslt_kernel", std::string());
  v.cublaslt_runners_up = j.value("cublaslt_runners_up", std::vector<std::string>{});
  v.cublas_verdict = parse_disposition(j.value("cublas_verdict", std::string("skipped")));
  v.cublaslt_verdict = parse_disposition(j.value("cublaslt_verdict", std::string("skipped")));
  v.cublas_err_ratio = j.value("cublas_err_ratio", 0.0);
  v.cublaslt_err_ratio = j.value("cublaslt_err_ratio", 0.0);
  v.verdict_reason = j.value("verdict_reason", std::string());
  v.cublaslt_rejected.clear();
  if (auto const it = j.find("cublaslt_rejected"); it != j.end()) {
    for (json const& r : *it) {
      v.cublaslt_rejected.push_back({r.at("kernel").get<std::string>(),
                                     r.at("err_ratio").get<double>(),
                                     r.at("reason").get<std::string>()});
    }
  }
  v.cublas_power = {};
  v.cublaslt_power = {};
  if (auto const it = j.find("cublas_power"); it != j.end()) it->get_to(v.cublas_power);
  if (auto const it = j.find("cublaslt_power"); it != j.end()) it->get_to(v.cublaslt_power);
}

void to_json(json& j, RetimeJob const& v) {
  j = json{{"candidates", v.candidates}, {"baselines", v.baselines}, {"rounds", v.rounds},
           {"settle_ms", v.settle_ms}};
}
void from_json(json const& j, RetimeJob& v) {
  j.at("candidates").get_to(v.candidates);
  j.at("baselines").get_to(v.baselines);
  j.at("rounds").get_to(v.rounds);
  j.at("settle_ms").get_to(v.settle_ms);
}

void to_json(json& j, RetimeResult const& v) {
  j = json{{"candidates", v.candidates},
           {"candidate_rounds_ms", v.candidate_rounds_ms},
           {"baselines", v.baselines},
           {"cublas_rounds_ms", v.cublas_rounds_ms},
           {"cublaslt_rounds_ms", v.cublaslt_rounds_ms},
           {"round_board", v.round_board}};
}
void from_json(json const& j, RetimeResult& v) {
  j.at("candidates").get_to(v.candidates);
  j.at("candidate_rounds_ms").get_to(v.candidate_rounds_ms);
  j.at("baselines").get_to(v.baselines);
  j.at("cublas_rounds_ms").get_to(v.cublas_rounds_ms);
  j.at("cublaslt_rounds_ms").get_to(v.cublaslt_rounds_ms);
  j.at("round_board").get_to(v.round_board);
  if (v.candidate_rounds_ms.size() != v.candidates.size()) {
    throw Error("retime result: " + std::to_string(v.candidates.size()) + " candidates but " +
                std::to_string(v.candidate_rounds_ms.size()) + " lists of round figures");
  }
}

}  // namespace gemmtune
