// model/guarded_inference.h: ONNX shape inference on an untrusted model, run where a crash is a
// typed Error. Internal to src/model (it names protobuf types).
//
// ONNX's C++ shape inference divides by attributes it never checks (a Conv or pool stride of 0, a
// Split with no outputs: SIGFPE) and has more crashers of its kind; it runs here in a forked child
// (core/forked_call.h) on the child's copy-on-write view of the model, and only the value infos it
// adds come back. check_inference_hazards names the known crashers before anything runs, so the
// common case is a precise bad_input message rather than a signal name.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "parity/result.h"

namespace onnx {
class GraphProto;
class ModelProto;
}  // namespace onnx

namespace parity::model::detail {

// What ONNX shape inference found on a model.
struct InferredTypes {
  // The top-level graph's value_info and output after inference (nothing else is filled, unless
  // asked for subgraphs: then its nodes too, each with only its graph attributes, whose subgraphs
  // carry their inputs, outputs, value_info and nodes the same way, initializers left out); empty
  // when inference threw.
  std::unique_ptr<onnx::GraphProto> graph;
  std::optional<std::string> failure;  // what inference threw (newer ops, a type error in strict mode)
};

// Runs onnx::shape_inference::InferShapes on `model` in a forked child. `strict` is ONNX's
// check_type with error_mode 1 (type errors throw). An exception inside inference is a value
// (failure); the child dying (SIGFPE, an abort) is an Error (ErrorKind::crashed at
// Stage::load_model) naming `origin` and hinting at `parity inspect`. `model` is not changed.
// `with_subgraphs` also brings back what inference found inside If/Loop/Scan bodies, aligned node
// for node with the model (the fp16 converter types the values of every scope with it).
Result<InferredTypes> infer_shapes_guarded(const onnx::ModelProto& model, const std::string& origin,
                                           bool strict = false, bool with_subgraphs = false);

// The first attribute or arity of `graph` (its subgraphs included) known to crash ONNX shape
// inference or to make no sense for any runtime: a stride, dilation or kernel size below 1, a
// Split without outputs, a Scan/Loop/If body whose input count does not match the node. A one-line
// description naming the node, or nullopt. `opset` is the model's ai.onnx opset (Scan-8 has one
// input more than its body).
std::optional<std::string> find_inference_hazard(const onnx::GraphProto& graph, int64_t opset);

}  // namespace parity::model::detail
