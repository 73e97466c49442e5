// The divergence rule, the path and the checkpoint spacing on generated graphs, without backends;
// plus one end-to-end bisect on CPU backends through real workers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "bisect/bisect.h"

namespace parity::bisect {
namespace {

std::string model_path(const std::string& name) {
  return std::string(PARITY_TEST_MODELS) + "/" + name + ".onnx";
}

// Rows for every tensor of `g`, all compared and matching.
std::vector<TensorReport> all_match(const model::GraphOutline& g) {
  std::vector<TensorReport> rows;
  for (const auto& t : g.tensors) {
    TensorReport r;
    r.name = t.tensor;
    r.node = t.node;
    r.op_type = t.op_type;
    r.order = t.order;
    r.compared = true;
    rows.push_back(r);
  }
  return rows;
}

// Marks `name` as diverging by comparing real tensors, so the rule sees what bisect sees.
void diverge(std::vector<TensorReport>& rows, const std::string& name, const Tensor& actual,
             const Tensor& expected) {
  for (auto& r : rows)
    if (r.name == name) {
      const Tolerance tol = default_tolerance(expected.dtype());
      const Comparison c = compare_tensors(actual, expected, tol);
      const OutputVerdict v = judge(actual, expected, c, tol);
      r.verdict = v.verdict;
      r.failed_rule = v.failed_rule;
      r.metrics = c;
    }
}

class DivergenceRule : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = model::ModelSurgery::open(model_path("webgpu_bug_dq_blocked_1d_multilayer"));
    ASSERT_TRUE(s.ok()) << s.error().describe();
    graph_ = s->outline();
  }
  model::GraphOutline graph_;
  const float good_[2] = {1.0f, 2.0f};
  const float bad_[2] = {1.0f, 2.5f};
};

TEST_F(DivergenceRule, NoMismatchNoCulprit) { EXPECT_FALSE(find_first_divergent(graph_, all_match(graph_))); }

TEST_F(DivergenceRule, ErrorBornAtTheNodeWhoseInputsMatch) {
  auto rows = all_match(graph_);
  const Tensor e = Tensor::from_floats({2}, good_), a = Tensor::from_floats({2}, bad_);
  for (const char* t : {"bias", "h3", "h4", "h5", "y"}) diverge(rows, t, a, e);
  auto fd = find_first_divergent(graph_, rows);
  ASSERT_TRUE(fd);
  EXPECT_EQ(fd->node, "dq_bias");
  EXPECT_TRUE(fd->born_here);
  EXPECT_TRUE(fd->weight_path) << "dq_bias reads a graph input and initializers only";
  EXPECT_EQ(fd->failed_rule, "allclose");
}

TEST_F(DivergenceRule, InheritedWhenAnInputWasNotSeenToMatch) {
  auto rows = all_match(graph_);
  const Tensor e = Tensor::from_floats({2}, good_), a = Tensor::from_floats({2}, bad_);
  diverge(rows, "h3", a, e);
  rows[1].compared = false;  // h2, an input of add_bias, never exposed
  auto fd = find_first_divergent(graph_, rows);
  ASSERT_TRUE(fd);
  EXPECT_EQ(fd->node, "add_bias");
  EXPECT_FALSE(fd->born_here) << "an unseen input is no evidence that the inputs match";
  EXPECT_FALSE(fd->weight_path);
}

TEST_F(DivergenceRule, WalksUpstreamToTheEarliestDivergentInput) {
  auto rows = all_match(graph_);
  const Tensor e = Tensor::from_floats({2}, good_), a = Tensor::from_floats({2}, bad_);
  diverge(rows, "h4", a, e);
  diverge(rows, "h3", a, e);
  // Even if the list were scanned from h4, its producer's input h3 diverges too.
  std::swap(rows[3], rows[4]);
  auto fd = find_first_divergent(graph_, rows);
  ASSERT_TRUE(fd);
  EXPECT_EQ(fd->tensor, "h3");
  EXPECT_TRUE(fd->born_here);
}

TEST_F(DivergenceRule, NanOnOneSideIsADivergence) {
  auto rows = all_match(graph_);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float with_nan[2] = {1.0f, nan};
  diverge(rows, "h5", Tensor::from_floats({2}, with_nan), Tensor::from_floats({2}, good_));
  auto fd = find_first_divergent(graph_, rows);
  ASSERT_TRUE(fd);
  EXPECT_EQ(fd->node, "matmul2");
  EXPECT_EQ(fd->failed_rule, "nan");
  ASSERT_TRUE(fd->metrics);
  EXPECT_EQ(fd->metrics->nan_mismatch, 1);
  EXPECT_TRUE(fd->born_here);
}

TEST_F(DivergenceRule, PathRunsFromAGraphInputToTheCulprit) {
  EXPECT_EQ(path_to(graph_, "h4"), (std::vector<std::string>{"x", "h1", "h2", "h3", "h4"}));
  EXPECT_EQ(path_to(graph_, "bias"), (std::vector<std::string>{"bias_q", "bias"}));
}

TEST(Checkpoints, EverythingWhenItFits) {
  const std::vector<int> order{0, 1, 2, 3};
  const std::vector<uint64_t> bytes(4, 100);
  EXPECT_EQ(pick_checkpoints(order, bytes, 400), order);
}

TEST(Checkpoints, EvenlySpacedAndKeepsTheLastWhenItDoesNot) {
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) order.push_back(i);
  const std::vector<uint64_t> bytes(100, 10);
  const auto cps = pick_checkpoints(order, bytes, 40);
  EXPECT_EQ(cps, (std::vector<int>{24, 49, 74, 99}));
  // Never fewer than two per round, so every round at least halves the span.
  EXPECT_EQ(pick_checkpoints(order, bytes, 1).size(), 2u);
}

// One large (or unknown, estimated large) tensor does not cap every round: the count is what the
// chosen tensors' own bytes allow (Swin-T took 445 checkpoints of 6171 and six rounds before).
TEST(Checkpoints, AsManyAsTheirOwnBytesAllow) {
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) order.push_back(i);
  std::vector<uint64_t> bytes(100, 10);
  bytes[50] = 1000;
  const auto cps = pick_checkpoints(order, bytes, 1500);
  uint64_t sum = 0;
  for (int i : cps) sum += bytes[static_cast<std::size_t>(i)];
  EXPECT_LE(sum, 1500u);
  EXPECT_GE(cps.size(), 40u);
  EXPECT_EQ(cps.back(), 99);
}

TEST(RunBisect, CleanModelOnTwoCpuBackendsHasNoDivergence) {
  BisectOptions o;
  o.model_path = model_path("matmul_add_relu");
  o.reference.label = o.reference.ep = "cpu";
  o.target.label = "noopt";
  o.target.ep = "cpu";
  o.target.opt_level = "disabled";
  o.target.ort_lib = o.reference.ort_lib = PARITY_DEFAULT_ORT_LIB;
  o.inputs.dims["batch"] = 2;
  o.worker_exe = PARITY_BIN;
  o.limits.timeout_s = 120;
  auto r = run_bisect(o);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_FALSE(r->target_error) << r->target_error->describe();
  EXPECT_FALSE(r->first_divergent);
  EXPECT_FALSE(r->final_mismatch);
  EXPECT_EQ(r->backend_runs, 3) << "plain target, exposed reference, exposed target";
  for (const auto& t : r->tensors) EXPECT_TRUE(t.compared) << t.name;
  // The timeline accounts for every run, in start order, each inside the bisect's wall time.
  ASSERT_EQ(r->runs.size(), 3u);
  EXPECT_EQ(r->runs[0].what, "plain run");
  EXPECT_EQ(r->runs[0].backend, "noopt");
  std::set<std::string> exposed_by;
  for (std::size_t i = 0; i < r->runs.size(); ++i) {
    const auto& c = r->runs[i];
    EXPECT_TRUE(c.ok) << c.what;
    EXPECT_GT(c.run_ms, 0) << c.what;
    EXPECT_GE(c.wall_ms, c.create_ms + c.run_ms) << c.what;
    EXPECT_LE(c.start_ms + c.wall_ms, r->wall_ms) << c.what;
    EXPECT_GT(c.output_bytes, 0u) << c.what;
    if (i > 0) {
      EXPECT_GE(c.start_ms, r->runs[i - 1].start_ms);
      EXPECT_NE(c.what.find("exposing"), std::string::npos) << c.what;
      exposed_by.insert(c.backend);
    }
  }
  EXPECT_EQ(exposed_by, (std::set<std::string>{"cpu", "noopt"}));
  EXPECT_DOUBLE_EQ(r->plain_run_ms, r->runs[0].wall_ms);
}

TEST(RunBisect, SameLabelTwiceIsABadInvocation) {
  BisectOptions o;
  o.model_path = model_path("matmul_add_relu");
  o.reference.label = o.reference.ep = "cpu";
  o.target = o.reference;
  o.inputs.dims["batch"] = 1;
  auto r = run_bisect(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
}

// M-LSD's local-maximum mask on WebGPU: Sigmoid and MaxPool match within their bounds, Equal
// flips one element (a near-tie), and the flip spreads to cast and scores with a smaller relative
// error, so they inherit it. The rule names the flip as a near-tie; a later divergence born at its
// own node comes before it in the isolation order.
TEST(NearTie, AComparisonOnMatchingInputsIsANearTieFlip) {
  auto s = model::ModelSurgery::open(model_path("bisect_local_max_mask"));
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const auto& g = s->outline();
  auto rows = all_match(g);
  const std::vector<uint8_t> want{1, 0, 0, 1}, got{1, 0, 1, 1};
  auto bools = [](const std::vector<uint8_t>& v) {
    std::vector<std::byte> b(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) b[i] = std::byte{v[i]};
    return Tensor::from_bytes(DType::boolean, {4}, std::move(b)).value();
  };
  const float mask_e[4] = {1, 0, 0, 1}, mask_a[4] = {1, 0, 1, 1};
  const float scores_e[4] = {0.9f, 0, 0, 0.8f}, scores_a[4] = {0.9f, 0, 0.0001f, 0.8f};
  diverge(rows, "is_max", bools(got), bools(want));
  diverge(rows, "mask", Tensor::from_floats({4}, mask_a), Tensor::from_floats({4}, mask_e));
  diverge(rows, "scores", Tensor::from_floats({4}, scores_a), Tensor::from_floats({4}, scores_e));
  auto fd = find_first_divergent(g, rows);
  ASSERT_TRUE(fd);
  EXPECT_EQ(fd->node, "equal");
  EXPECT_TRUE(fd->born_here);
  EXPECT_TRUE(fd->near_tie);
  const auto candidates = find_divergent_candidates(g, rows);
  ASSERT_EQ(candidates.size(), 1u) << "cast and scores inherit the flip";

  // Had sigmoid's output itself diverged, Equal would be no near-tie.
  const float sig_e[4] = {0.5f, 0.5f, 0.5f, 0.5f}, sig_a[4] = {0.5f, 0.9f, 0.5f, 0.5f};
  diverge(rows, "sig", Tensor::from_floats({4}, sig_a), Tensor::from_floats({4}, sig_e));
  auto fd2 = find_first_divergent(g, rows);
  ASSERT_TRUE(fd2);
  EXPECT_EQ(fd2->node, "sigmoid");
  EXPECT_FALSE(fd2->near_tie);
}

}  // namespace
}  // namespace parity::bisect
