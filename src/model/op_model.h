// model/op_model.h: a one-node ONNX model built from a description of the op: its inputs (graph
// inputs of a dtype and shape, or initializers with values), its attributes and its outputs, typed
// and shaped by ONNX's own shape inference. The unit of a systematic search over an op's shape and
// attribute space (`parity hunt`, issue 20): each point of the space is one such model, run on the
// target and the reference like any other.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/graph_facts.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::model {

struct OpInput {
  std::string name;  // "" leaves an optional input out (its position kept)
  DType dtype = DType::float32;
  Shape shape;
  std::optional<Tensor> value;  // set: an initializer (weights, scales); unset: a graph input
  // For a graph input: the interval its values are drawn from (default: the dtype's, e.g. [-1, 1]).
  std::optional<std::pair<double, double>> range;
};

// An output's type given by hand, for ops newer than the system's ONNX library can infer.
struct OpOutputType {
  DType dtype = DType::float32;
  Shape shape;
};

// A node after the op that keeps its first output's shape and dtype (Relu, Add of a scalar, Softmax
// on the last axis): a short chain, where fusions and kernels that read a producer's layout show.
struct OpTail {
  std::string op_type;
  std::vector<OpInput> constants;  // initializers after the chained input (Clip's bounds, Add's scalar)
  std::vector<std::pair<std::string, Attribute>> attributes;
};

// A node of a small graph (hunt's random graphs): reads graph inputs, initializers and earlier
// nodes' outputs by name.
struct OpNode {
  std::string name, op_type;
  std::vector<std::string> inputs, outputs;
  std::vector<std::pair<std::string, Attribute>> attributes;
};

// The newest opset the system's ONNX library (Debian 12: onnx 1.13) checks and infers in full
// (its opset-18 schemas lack Reduce*'s axes input and Resize's antialias).
inline constexpr int kMaxCheckedOpset = 17;

struct OpModel {
  std::string op_type;  // "Conv"
  std::string domain;   // "" for ai.onnx
  // Up to kMaxCheckedOpset ONNX's checker and shape inference type the outputs; past it (blocked
  // DequantizeLinear is opset 21), or for another domain's op (com.microsoft: imported at version 1
  // beside ai.onnx at `opset`), output_types must.
  int opset = 17;
  std::vector<OpInput> inputs;
  std::vector<std::pair<std::string, Attribute>> attributes;
  std::vector<std::string> outputs = {"y"};
  // Required past kMaxCheckedOpset (one per output): the model is then written as described,
  // unchecked, and ONNX Runtime's loader is its checker. Ignored at or below it.
  std::vector<OpOutputType> output_types;
  // Nodes chained on outputs[0], in order; the last one's output replaces it as a graph output.
  std::vector<OpTail> tail;
  // A small graph instead of one op (op_type empty, no tail): its nodes in topological order;
  // `inputs` are then the graph's inputs and initializers, `outputs` the graph's outputs (any
  // node's), all typed by shape inference.
  std::vector<OpNode> nodes;
};

inline bool is_graph(const OpModel& op) { return op.op_type.empty(); }

// The model's node names, in order: "<op_type>_0", then "<tail op_type>_1", ...; a graph's own.
std::vector<std::string> op_node_names(const OpModel& op);

Attribute int_attribute(int64_t v);
Attribute ints_attribute(std::vector<int64_t> v);
Attribute float_attribute(double v);
Attribute text_attribute(std::string v);

// The model's serialized bytes. bad_input when ONNX's checker or shape inference rejects the
// description (an attribute the op lacks, shapes that do not fit), naming the op and the reason.
Result<std::string> op_model_bytes(const OpModel& op);
Status write_op_model(const OpModel& op, const std::filesystem::path& path);

}  // namespace parity::model
