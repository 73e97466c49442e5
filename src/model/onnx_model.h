// model/onnx_model.h: reading an ONNX file and describing its interface.
//
// The only module that includes protobuf/ONNX headers; everything it returns is a plain Parity
// type. Malformed input (missing file, not ONNX, truncated protobuf) is an Error of kind
// bad_input or io at Stage::load_model, never a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "parity/dtype.h"
#include "parity/result.h"

namespace parity::model {

// One dimension of a declared shape: a fixed size, a symbolic name ("batch"), or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when fixed
  std::string symbol;  // non-empty when symbolic
  bool is_fixed() const { return value >= 0; }
};

struct ValueInfo {
  std::string name;
  DType dtype = DType::undefined;
  bool has_shape = false;  // false: the model declares no shape at all (rank unknown)
  std::vector<Dim> dims;
};

// A control-flow node (If/Loop/Scan) and the size of the subgraphs it carries: bisect and the
// backends see it as one node, and bisect rewrites it (inlines an If, unrolls a Loop or Scan), so
// `inspect` names it.
struct ControlFlowNode {
  std::string name;
  std::string op_type;
  std::size_t subgraph_nodes = 0;  // nodes in all its subgraphs, nested ones included
};

struct ModelInfo {
  std::filesystem::path path;
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  std::string producer;                   // "pytorch 2.1", may be empty
  std::vector<ValueInfo> inputs;          // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::size_t node_count = 0;                 // top-level graph nodes
  std::map<std::string, int> op_counts;       // op_type -> count (top level)
  bool has_control_flow = false;              // If/Loop/Scan present at top level
  std::vector<ControlFlowNode> control_flow;  // those nodes, in graph order
  std::size_t initializer_count = 0;
  std::uintmax_t initializer_bytes = 0;   // the weights' element bytes, stored inline or external
  std::size_t external_initializers = 0;  // initializers whose bytes live in external data files
  // The files those bytes live in: each distinct `location` of the top-level initializers and
  // Constant values, as the model spells it (relative to the model's folder), in first-use order.
  std::vector<std::string> external_files;
  // Element types of every tensor the top-level graph names: inputs, outputs, value_info,
  // initializers, Constant values and Cast targets. A backend that lacks a type (fp16 on a
  // WebGPU adapter without shader-f16) can refuse the model up front instead of miscomputing.
  std::set<DType> element_types;
  // Bytes of the weights (initializers and Constant values) by element type: what the model
  // stores its parameters in, whatever its inputs and outputs say (an fp16 export keeps fp32 I/O).
  std::map<DType, std::uintmax_t> weight_bytes;
  // Of the largest single weight (an initializer or a Constant's value): one buffer a GPU backend
  // must create for it.
  std::uintmax_t largest_weight_bytes = 0;
  std::uintmax_t file_bytes = 0;
  // Integer inputs an Equal node (at any depth) compares with a one-element integer constant, and
  // that constant: Silero VAD's `sr` with 16000, whose If takes another branch for any other value.
  std::map<std::string, int64_t> compared_with;
};

// The precision a model computes in, read from its weights: "q4" (MatMulNBits or 4-bit weights),
// "int8"/"uint8" (quantization ops over 8-bit weights), "fp16", "bf16", else "fp32". Shape tensors
// (int64) do not count. The label sweep and manifests use for a file nobody named.
std::string weight_precision(const ModelInfo& info);

// Reads and parses `path`, checks it is a plausible ONNX model (has a graph, typed inputs and
// outputs), and describes it. Thread-safe; keeps nothing open.
Result<ModelInfo> inspect_model(const std::filesystem::path& path);

// Same, from bytes already in memory (used by the fuzzer; `origin` names them in messages).
Result<ModelInfo> inspect_model_bytes(const std::string& bytes, const std::string& origin);

}  // namespace parity::model
