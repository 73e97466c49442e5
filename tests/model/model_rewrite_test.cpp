// ModelRewriter's control-flow rewrites at the file level: what they refuse (a Loop that may stop
// early, a Scan along another axis) and what they write (unrolled nodes named per iteration).
// Their numbers are checked end to end by the bisect fixtures (if_whole_network, loop_dq, scan_dq),
// where bisect compares the rewritten graph with the original on the reference.
#include "model/model_rewrite.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "model/graph_facts.h"
#include "support/temp_dir.h"

namespace parity::model {
namespace {

const std::string kModels = PARITY_TEST_MODELS;

TEST(ModelRewrite, ALoopThatMayStopEarlyIsNotUnrolled) {
  auto r = ModelRewriter::open(kModels + "/bisect_loop_early_stop.onnx");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const Status s = r->unroll_loop("early_loop", 5);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("may stop before its trip count"), std::string::npos) << s.error().message;
}

TEST(ModelRewrite, UnrolledLoopNamesEveryIterationsNodes) {
  testing::TempDir tmp;
  auto r = ModelRewriter::open(kModels + "/bisect_loop_dq.onnx");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->unroll_loop("loop_body", 3).ok());
  ASSERT_TRUE(r->save(tmp.path() / "unrolled.onnx").ok());
  auto facts = read_graph_facts(tmp.path() / "unrolled.onnx");
  ASSERT_TRUE(facts.ok()) << facts.error().describe();
  auto has = [&](const std::string& name) {
    return std::any_of(facts->nodes.begin(), facts->nodes.end(),
                       [&](const auto& n) { return n.name == name; });
  };
  for (const char* n : {"loop_body/iter0/dq_bias", "loop_body/iter2/squash", "loop_body/scan0/stack"})
    EXPECT_TRUE(has(n)) << n;
  EXPECT_FALSE(has("loop_body"));
  EXPECT_FALSE(facts->first_out_of_order) << "unrolled nodes must stay in topological order";
}

TEST(ModelRewrite, InlinedIfKeepsTheIfsOutputNames) {
  testing::TempDir tmp;
  auto r = ModelRewriter::open(kModels + "/bisect_if_whole_network.onnx");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->inline_if("if_sample_rate", true).ok());
  EXPECT_FALSE(r->inline_if("if_sample_rate", true).ok()) << "it is gone";
  ASSERT_TRUE(r->inline_if("if_inner", true).ok()) << "the nested If surfaced at the top level";
  ASSERT_TRUE(r->save(tmp.path() / "inlined.onnx").ok());
  auto facts = read_graph_facts(tmp.path() / "inlined.onnx");
  ASSERT_TRUE(facts.ok()) << facts.error().describe();
  const FactNode* relu = nullptr;
  for (const auto& n : facts->nodes)
    if (n.name == "inner_relu") relu = &n;
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->outputs, std::vector<std::string>{"branch"}) << "the branch output took the If's name";
  EXPECT_FALSE(facts->first_out_of_order);
}

}  // namespace
}  // namespace parity::model
