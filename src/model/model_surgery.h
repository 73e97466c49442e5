// model/model_surgery.h: the graph edits `parity bisect` needs, so the rest of Parity never touches
// protobuf: listing every top-level node output in topological order, writing a copy of a model
// that exposes chosen intermediate tensors as extra graph outputs, and cutting a subgraph of chosen
// nodes into a model of its own (what the second seed did by hand with onnx.utils.extract_model).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "parity/dtype.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::model {

// One top-level node, in topological order.
struct GraphNode {
  std::string name;                  // the node's name, or a synthesized "<op_type>_<index>" when it has none
  std::string op_type;               // "Conv"; custom domains as "domain:Op"
  std::vector<std::string> inputs;   // as in the model; "" marks an omitted optional input
  std::vector<std::string> outputs;  // idem
  bool has_subgraph = false;         // If/Loop/Scan (or any node with a graph attribute)
  // Top-level values the node's subgraphs read from the outer scope (implicit inputs).
  std::vector<std::string> outer_inputs;
};

// One value produced by a top-level node: what bisect compares.
struct NodeOutput {
  std::string tensor;
  std::string node;  // producer's (possibly synthesized) name
  std::string op_type;
  int order = 0;                   // producer's index in topological order
  DType dtype = DType::undefined;  // from value_info, shape inference, or the type-preserving fallback
  std::optional<Shape> shape;      // static shape when every dim is known (-1 for symbolic dims)
};

struct GraphOutline {
  std::vector<GraphNode> nodes;            // topological order
  std::vector<NodeOutput> tensors;         // every non-empty node output, in node order
  std::vector<std::string> graph_inputs;   // runtime inputs (initializers excluded), model order
  std::vector<std::string> graph_outputs;  // model order
  std::set<std::string> initializers;
  // One line per node whose inner graphs cannot be exposed: "if_branch (If): 3 inner nodes".
  std::vector<std::string> skipped_subgraphs;
  const NodeOutput* find_tensor(const std::string& name) const;
  // Index into `nodes` of the node producing `tensor`; -1 for graph inputs and initializers.
  int producer_of(const std::string& tensor) const;
};

// A parsed model kept in memory so bisect can cut it many times without re-reading the file.
// Not thread-safe, its const writers included (a cut swaps the graph's contents aside while it
// copies the rest); movable, not copyable.
class ModelSurgery {
 public:
  ~ModelSurgery();
  ModelSurgery(ModelSurgery&&) noexcept;
  ModelSurgery& operator=(ModelSurgery&&) noexcept;

  // Reads `path`, orders its nodes topologically and types every node output (value_info, then
  // ONNX shape inference, then the producer's input type for type-preserving ops). A model that
  // is not ONNX, or whose graph has a cycle, is a bad_input Error at Stage::load_model.
  static Result<ModelSurgery> open(const std::filesystem::path& path);

  const GraphOutline& outline() const;

  // Writes a copy of the model whose outputs are its own outputs followed by `tensors` (names of
  // top-level node outputs; a name that already is a graph output is not repeated). Every extra
  // output is declared with its element type and no shape, so backends never reject it for a
  // shape they compute differently. Unknown names or an untyped tensor: bad_input.
  Status write_exposed(const std::filesystem::path& dst, const std::vector<std::string>& tensors) const;

  // Writes a model holding only `node_indices` (into outline().nodes), in topological order.
  // Initializers they read stay initializers (a DequantizeLinear of weights stays constant);
  // every other value they read and no chosen node produces becomes a graph input, typed and
  // shaped from `input_shapes` (the captured tensors' shapes; a missing entry leaves the shape
  // out). Outputs are `outputs`, which must be produced by chosen nodes. Returns the graph
  // input names in the order written.
  Result<std::vector<std::string>> write_subgraph(const std::filesystem::path& dst,
                                                  const std::vector<int>& node_indices,
                                                  const std::vector<std::string>& outputs,
                                                  const std::map<std::string, Shape>& input_shapes) const;

 private:
  static Result<ModelSurgery> open_unguarded(const std::filesystem::path& path);
  struct Impl;
  explicit ModelSurgery(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace parity::model
