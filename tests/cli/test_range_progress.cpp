// The range search's display: one line per finished point of a range with the pass, the points
// done of those planned, the pass's ETA and the bucket map so far; other problems print as
// before.
#include "cli/range_progress.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

namespace gemmtune {
namespace {

/// Captures what the progress writes to stderr.
class CaptureErr {
 public:
  CaptureErr() : old_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CaptureErr() { std::cerr.rdbuf(old_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

ProblemOutcome finished(std::int64_t m, std::int64_t n, std::int64_t k) {
  ProblemOutcome o;
  o.problem = Problem{m, n, k, Precision::kBF16, Layout::kNT, 16};
  return o;
}

TEST(RangeProgress, EachPointPrintsThePassTheCountAndTheBucketMap) {
  // The scripted cache: cuBLAS wins below M = 256, our kernel from there on.
  RangeProgress p(false, {RangeShape{1, 4096, 4096, 4096}}, [](Problem const& q) {
    RangePoint r;
    r.m = q.m;
    r.pick = q.m < 256 ? "cublas:default" : "wgmma:BM=128";
    return r;
  });
  CaptureErr err;
  p.start_pass(0, 3);
  p.problem_finished(finished(1, 4096, 4096));
  p.problem_finished(finished(4096, 4096, 4096));
  p.problem_finished(finished(64, 4096, 4096));
  p.problem_finished(finished(64, 1024, 4096));  // not a point of the range
  p.start_pass(1, 1);
  p.problem_finished(finished(512, 4096, 4096));
  std::string const out = err.text();
  EXPECT_NE(out.find("range 1-4096x4096x4096 bf16 NT: pass 1, 1/3 points, pass eta"),
            std::string::npos) << out;
  EXPECT_NE(out.find("buckets 1-1 cublas:default\n"), std::string::npos) << out;
  // Three points, two picks: 1 and 64 share cuBLAS up to the geometric mean of 64 and 4096.
  EXPECT_NE(out.find("pass 1, 3/3 points; buckets 1-512 cublas:default | 513-4096 wgmma:BM=128"),
            std::string::npos) << out;
  EXPECT_NE(out.find("pass 2, 1/1 points; buckets 1-181 cublas:default | 182-4096 wgmma:BM=128"),
            std::string::npos) << out;
  // The problem outside the range gets the search's usual line and no range line.
  EXPECT_NE(out.find("done 64x1024x4096"), std::string::npos) << out;
  EXPECT_EQ(out.find("range 1-4096x1024"), std::string::npos) << out;
}

TEST(RangeProgress, QuietPrintsNothingAndReadsNoPoints) {
  RangeProgress p(true, {RangeShape{1, 4096, 4096, 4096}}, [](Problem const& q) {
    ADD_FAILURE() << "measured M = " << q.m;
    return RangePoint{};
  });
  CaptureErr err;
  p.start_pass(0, 1);
  p.problem_finished(finished(64, 4096, 4096));
  EXPECT_EQ(err.text(), "");
}

}  // namespace
}  // namespace gemmtune
