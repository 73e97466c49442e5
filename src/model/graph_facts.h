// model/graph_facts.h: a model's top-level graph as plain values, for rules that judge a file before
// anything runs (`parity lint`): every node with its attributes in file order, the values of small
// constants, the element type and static shape of every value the model or ONNX shape inference
// knows, and whether the file lists its nodes in topological order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "parity/dtype.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::model {

struct Attribute {
  enum class Kind { integer, integers, real, reals, text, tensor, graph, other };
  Kind kind = Kind::other;
  int64_t i = 0;
  std::vector<int64_t> ints;
  double f = 0;
  std::vector<double> floats;
  std::string s;
};

struct FactNode {
  std::size_t index = 0;            // position in the file
  std::string name;                 // as in the file; "<op_type>_<index>" when it has none
  std::string op_type;              // "Conv"
  std::string domain;               // "" for ai.onnx
  std::vector<std::string> inputs;  // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attributes;
  std::size_t subgraph_nodes = 0;  // nodes of its If/Loop/Scan bodies, nested ones included
  std::string scope;               // "" at the top level; "<node>/<attribute>" inside a body
  bool has(const std::string& attribute) const { return attributes.count(attribute) > 0; }
  std::string input(std::size_t k) const { return k < inputs.size() ? inputs[k] : std::string(); }
};

// An initializer or a Constant node's output.
struct ConstantFact {
  DType dtype = DType::undefined;
  Shape dims;
  std::optional<Tensor> value;  // read when it holds at most kMaxReadElements elements
  std::string node;             // the Constant node that makes it; empty for an initializer
};

struct GraphFacts {
  static constexpr int64_t kMaxReadElements = 4096;

  std::filesystem::path path;
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  std::vector<FactNode> nodes;            // top-level nodes, file order
  // Nodes inside If/Loop/Scan bodies (any depth), with `scope` naming where ("If_0/then_branch").
  // Their types and shapes are known only where a body declares them or a value is a constant.
  std::vector<FactNode> inner_nodes;
  std::vector<std::string> graph_inputs;  // runtime inputs (initializers excluded)
  std::vector<std::string> graph_outputs;
  std::map<std::string, ConstantFact> constants;
  std::map<std::string, DType> value_types;   // every value whose element type is known
  std::map<std::string, Shape> value_shapes;  // static shapes (-1 for symbolic dims) where known
  // The first node (file index) that reads a value produced by a later node: the file is not
  // topologically sorted (ONNX's checker rejects it; ORT sorts it itself). nullopt when sorted.
  std::optional<std::size_t> first_out_of_order;
  std::string out_of_order_value;  // the value that node reads too early

  const FactNode* producer(const std::string& value) const;  // nullptr for inputs and initializers
  DType type_of(const std::string& value) const;             // undefined when unknown
  std::optional<Shape> shape_of(const std::string& value) const;
  const Tensor* constant_value(const std::string& value) const;  // nullptr unless read
  bool is_constant(const std::string& value) const { return constants.count(value) > 0; }
};

// Names of the nodes computable before any input arrives: every input a constant (initializer or
// Constant output) or made by such a node, Constant nodes themselves included. File order decides
// (an unsorted file may miss some, never invents one).
std::set<std::string> constant_nodes(const GraphFacts& facts);

// Reads `path`. A file that is not an ONNX model is the same bad_input Error inspect_model gives.
Result<GraphFacts> read_graph_facts(const std::filesystem::path& path);

}  // namespace parity::model
