// The Graph space: random graphs that ONNX's checker accepts, use the whole op menu, and reduce the
// way hunt's reduction assumes (a smaller `nodes` is a prefix of the larger graph; `keep` cuts the
// nodes before the last ones away, their values becoming graph inputs).
#include "hunt/random_graph.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "model/op_model.h"

namespace parity::hunt {
namespace {

Point graph_point(int64_t seed, int64_t nodes, int64_t keep, int64_t c = 8, int64_t h = 16, int64_t w = 16) {
  return {{"graph", seed}, {"nodes", nodes}, {"keep", keep}, {"C", c}, {"H", h}, {"W", w}};
}

TEST(RandomGraph, GraphsAreCheckedAndUseTheWholeMenu) {
  const OpSpace* space = find_space("Graph");
  ASSERT_NE(space, nullptr);
  std::map<std::string, int> ops;
  int nodes = 0;
  for (int64_t seed = 0; seed < 100; ++seed) {
    auto op = space->build(graph_point(seed, 8, 8), 1);
    ASSERT_TRUE(op.ok()) << op.error().describe();
    ASSERT_TRUE(model::is_graph(*op));
    EXPECT_EQ(op->nodes.size(), 8u);
    EXPECT_FALSE(op->outputs.empty());
    auto bytes = model::op_model_bytes(*op);
    ASSERT_TRUE(bytes.ok()) << "graph=" << seed << ": " << bytes.error().describe();
    for (const auto& n : op->nodes) ++ops[n.op_type];
    nodes += static_cast<int>(op->nodes.size());
  }
  std::string seen;
  for (const auto& [op, n] : ops) seen += op + ":" + std::to_string(n) + " ";
  EXPECT_GE(ops.size(), 20u) << seen;
  EXPECT_LT(ops["Relu"], nodes / 4) << "too many ops fell back to Relu: " << seen;
}

TEST(RandomGraph, FewerNodesIsAPrefixAndKeepCutsTheFront) {
  const OpSpace* space = find_space("Graph");
  for (int64_t seed : {3, 17, 12345}) {
    auto full = space->build(graph_point(seed, 8, 8), 1);
    auto prefix = space->build(graph_point(seed, 5, 8), 1);
    ASSERT_TRUE(full.ok() && prefix.ok());
    ASSERT_EQ(prefix->nodes.size(), 5u);
    for (std::size_t k = 0; k < 5; ++k) {
      EXPECT_EQ(prefix->nodes[k].name, full->nodes[k].name);
      EXPECT_EQ(prefix->nodes[k].inputs, full->nodes[k].inputs);
    }
    auto last = space->build(graph_point(seed, 8, 1), 1);
    ASSERT_TRUE(last.ok());
    ASSERT_EQ(last->nodes.size(), 1u);
    EXPECT_EQ(last->nodes[0].name, full->nodes[7].name);
    EXPECT_EQ(last->outputs, std::vector<std::string>{full->nodes[7].outputs[0]});
    // What it read from the nodes cut away is now a graph input of the same shape.
    std::set<std::string> inputs;
    for (const auto& in : last->inputs) inputs.insert(in.name);
    for (const auto& i : last->nodes[0].inputs) {
      if (i.empty()) continue;
      EXPECT_TRUE(inputs.count(i)) << i;
    }
    EXPECT_TRUE(model::op_model_bytes(*last).ok());
  }
}

}  // namespace
}  // namespace parity::hunt
