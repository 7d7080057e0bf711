// Worker messages survive a JSON round trip exactly.
#include <gtest/gtest.h>

#include "src/core/error.hpp"
#include "src/core/eval_job.hpp"

namespace gemmtune {

TEST(EvalJobJson, RoundTrips) {
  EvalJob job;
  job.problem = parse_shape("100x200x300", Precision::kBF16, Layout::kNT).resolved();
  job.kernel_id = "naive:BX=32,BY=8";
  job.cubin_path = "/tmp/x.cubin";
  KernelLaunch l;
  l.name_expression = "gemmtune::naive<32,8,false,true>";
  l.lowered_name = "_ZN8gemmtune5naiveILi32ELi8ELb0ELb1EEEv8GemmArgs";
  l.grid = {4, 13, 1};
  l.block = {32, 8, 1};
  l.dynamic_smem = 1024;
  job.plan.launches.push_back(l);
  l.takes_tensor_maps = true;
  l.waits_for_prior_grids = true;
  job.plan.launches.push_back(l);
  job.plan.workspace_bytes = 64;
  job.plan.counter_bytes = 256;
  job.plan.tensor_maps = {{TmaOperand::kA, 128, 64, 128, 8192, true}, {TmaOperand::kB, 64, 32, 128, 4096},
                          {TmaOperand::kC, 32, 32, 0}};
  job.seed = 42;
  job.timing.early_stop_ms = 1.5;
  job.timing.protocol = TimingProtocol::kStream;
  job.beta = 0.5f;
  nlohmann::json j = job;
  EvalJob back = j.get<EvalJob>();
  EXPECT_EQ(back.problem, job.problem);
  EXPECT_EQ(back.plan, job.plan);
  EXPECT_EQ(back.timing, job.timing);
  EXPECT_EQ(back.seed, 42u);
  EXPECT_FLOAT_EQ(back.beta, 0.5f);

  EvalResult r;
  r.disposition = Disposition::kWrongResult;
  r.reason = "max |C-R|/bound = 3";
  r.exact_mismatches = 7;
  r.median_ms = 2.0;
  r.max_ms = 2.5;
  r.protocol = TimingProtocol::kStream;
  r.host_us_per_call = 4.25;
  nlohmann::json rj = r;
  EvalResult rb = rj.get<EvalResult>();
  EXPECT_EQ(rb.disposition, Disposition::kWrongResult);
  EXPECT_EQ(rb.exact_mismatches, 7);
  EXPECT_EQ(rb.reason, r.reason);
  EXPECT_EQ(rb.protocol, TimingProtocol::kStream);
  EXPECT_DOUBLE_EQ(rb.max_ms, 2.5);
  EXPECT_DOUBLE_EQ(rb.host_us_per_call, 4.25);
  EXPECT_EQ(j["timing"]["protocol"], "stream");
}

TEST(EvalJobJson, TimingProtocolNames) {
  EXPECT_EQ(to_string(TimingProtocol::kGraph), "graph");
  EXPECT_EQ(parse_timing_protocol("stream"), TimingProtocol::kStream);
  EXPECT_EQ(TimingSpec{}.protocol, TimingProtocol::kGraph);  // the figure of record by default
  EXPECT_THROW(parse_timing_protocol("loop"), UsageError);
  nlohmann::json j = TimingSpec{};
  j["protocol"] = "loop";
  EXPECT_THROW(j.get<TimingSpec>(), UsageError);
}

TEST(EvalJobJson, SensorFiguresTravelOnlyWhenRead) {
  EvalResult r;
  r.disposition = Disposition::kOk;
  r.median_ms = 0.2;
  nlohmann::json rj = r;
  EXPECT_FALSE(rj.contains("power"));
  EXPECT_FALSE(rj.get<EvalResult>().power.present());

  r.power = {148.25, 690.5, 1500, 2619, 61, 0x4};
  rj = r;
  ASSERT_TRUE(rj.contains("power"));
  EXPECT_EQ(rj["power"]["clock_events"], 4u);
  EXPECT_EQ(rj.get<EvalResult>().power, r.power);

  BaselineResult b;
  b.ok = true;
  b.cublas_ms = 0.175;
  nlohmann::json bj = b;
  EXPECT_FALSE(bj.contains("cublas_power"));
  EXPECT_FALSE(bj.contains("cublaslt_power"));
  b.cublas_power = {120.5, 689.0, 1530, 2619, 60, 0x4};
  bj = b;
  EXPECT_FALSE(bj.contains("cublaslt_power"));
  BaselineResult const back = bj.get<BaselineResult>();
  EXPECT_EQ(back.cublas_power, b.cublas_power);
  EXPECT_FALSE(back.cublaslt_power.present());

  bj["cublas_power"].erase("energy_mj");
  EXPECT_ANY_THROW(bj.get<BaselineResult>());
}

TEST(EvalJobJson, BaselineKeepsTheCublasLtAlgorithmsItPassedOver) {
  BaselineResult b;
  b.ok = true;
  EXPECT_FALSE(nlohmann::json(b).contains("cublaslt_rejected"));
  b.cublaslt_rejected = {{"cublaslt:ALGO=24,SPLITK=4,RED=1", 2.68, "max error 2.68x the bound"},
                         {"cublaslt:ALGO=24,SPLITK=3,RED=1", 1.5, "max error 1.5x the bound"}};
  nlohmann::json bj = b;
  BaselineResult const back = bj.get<BaselineResult>();
  ASSERT_EQ(back.cublaslt_rejected.size(), 2u);
  EXPECT_EQ(back.cublaslt_rejected[0].kernel, "cublaslt:ALGO=24,SPLITK=4,RED=1");
  EXPECT_DOUBLE_EQ(back.cublaslt_rejected[1].err_ratio, 1.5);
  EXPECT_EQ(back.cublaslt_rejected[0].reason, "max error 2.68x the bound");
  bj["cublaslt_rejected"][0].erase("kernel");
  EXPECT_ANY_THROW(bj.get<BaselineResult>());
}

TEST(EvalJobJson, RejectsUnknownTensorMapOperand) {
  EvalJob job;
  job.problem = parse_shape("8x8x8", Precision::kFP16, Layout::kNN).resolved();
  job.plan.tensor_maps = {{TmaOperand::kB, 8, 8, 0}};
  nlohmann::json j = job;
  j["plan"]["tensor_maps"][0]["operand"] = "D";
  EXPECT_ANY_THROW(j.get<EvalJob>());
}

TEST(EvalJobJson, RejectsMissingFields) {
  nlohmann::json j = {{"problem", {{"m", 1}}}};
  EXPECT_ANY_THROW(j.get<EvalJob>());
}

TEST(EvalJobJson, RetimeJobAndResultRoundTrip) {
  RetimeJob job;
  EvalJob c;
  c.problem = parse_shape("64x64x64", Precision::kFP32, Layout::kNN).resolved();
  c.kernel_id = "naive:BX=32,BY=8";
  job.candidates = {c, c};
  job.candidates[1].kernel_id = "naive:BX=16,BY=16";
  job.baselines.problem = c.problem;
  job.baselines.cublaslt_kernel = "cublaslt:ALGO=6,TILE=20";
  job.rounds = 4;
  job.settle_ms = 250.0;
  RetimeJob const back = nlohmann::json(job).get<RetimeJob>();
  ASSERT_EQ(back.candidates.size(), 2u);
  EXPECT_EQ(back.candidates[1].kernel_id, "naive:BX=16,BY=16");
  EXPECT_EQ(back.baselines.cublaslt_kernel, job.baselines.cublaslt_kernel);
  EXPECT_EQ(back.rounds, 4);
  EXPECT_DOUBLE_EQ(back.settle_ms, 250.0);

  RetimeResult r;
  r.candidates.resize(2);
  r.candidates[0].disposition = Disposition::kOk;
  r.candidates[0].median_ms = 1.5;
  r.candidates[1].disposition = Disposition::kWrongResult;
  r.candidate_rounds_ms = {{1.4, 1.5, 1.6}, {}};
  r.baselines.ok = true;
  r.baselines.cublas_ms = 2.0;
  r.cublas_rounds_ms = {2.0, 2.1, 1.9};
  r.cublaslt_rounds_ms = {1.8, 1.8, 1.9};
  PowerFigures board;
  board.sm_clock_mhz = 1500;
  r.round_board = {board, board, board};
  RetimeResult const rb = nlohmann::json(r).get<RetimeResult>();
  EXPECT_EQ(rb.candidates[1].disposition, Disposition::kWrongResult);
  EXPECT_EQ(rb.candidate_rounds_ms, r.candidate_rounds_ms);
  EXPECT_EQ(rb.cublas_rounds_ms, r.cublas_rounds_ms);
  EXPECT_EQ(rb.cublaslt_rounds_ms, r.cublaslt_rounds_ms);
  EXPECT_EQ(rb.round_board.size(), 3u);
  EXPECT_DOUBLE_EQ(rb.baselines.cublas_ms, 2.0);
  // A list of round figures per candidate, or the reply is refused.
  nlohmann::json broken = r;
  broken["candidate_rounds_ms"].erase(1);
  EXPECT_THROW(broken.get<RetimeResult>(), Error);
}

}  // namespace gemmtune
