#include "model/guarded_inference.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/forked_call.h"
#include "model/proto_io.h"

namespace parity::model::detail {
namespace {

// The child's reply: one tag byte ('o' inferred, 'f' threw), then the failure text's length (8
// bytes), the text, and the serialized GraphProto of value_info and outputs.
std::string encode(const std::optional<std::string>& failure, const onnx::GraphProto& g) {
  std::string out(1, failure ? 'f' : 'o');
  const uint64_t n = failure ? failure->size() : 0;
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  if (failure) out += *failure;
  out += g.SerializeAsString();
  return out;
}

std::optional<InferredTypes> decode(const std::string& bytes) {
  uint64_t n = 0;
  if (bytes.size() < 1 + sizeof n || (bytes[0] != 'o' && bytes[0] != 'f')) return std::nullopt;
  std::memcpy(&n, bytes.data() + 1, sizeof n);
  if (n > bytes.size() - 1 - sizeof n) return std::nullopt;
  InferredTypes t;
  t.graph = std::make_unique<onnx::GraphProto>();
  if (bytes[0] == 'f') t.failure = bytes.substr(1 + sizeof n, n);
  if (!parse_message(std::string_view(bytes).substr(1 + sizeof n + n), *t.graph)) return std::nullopt;
  return t;
}

std::string node_label(const onnx::NodeProto& n, int index) {
  const std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  return "node '" + printable(name) + "' (" + printable(n.op_type()) + ")";
}

bool onnx_domain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx" || n.domain() == "com.microsoft";
}

const onnx::GraphProto* graph_attribute(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name && a.has_g()) return &a.g();
  return nullptr;
}

std::optional<std::string> node_hazard(const onnx::NodeProto& n, int index, int64_t opset) {
  if (!onnx_domain(n)) return std::nullopt;  // no schema: shape inference does not look at it
  for (const auto& a : n.attribute()) {
    if (a.name() != "strides" && a.name() != "dilations" && a.name() != "kernel_shape") continue;
    for (const int64_t v : a.ints())
      if (v < 1)
        return node_label(n, index) + " has " + a.name() + " " + std::to_string(v) + " (must be at least 1)";
  }
  const std::string& op = n.op_type();
  if (op == "Split" && n.output_size() == 0) return node_label(n, index) + " has no outputs";
  if (op == "Scan") {
    if (const onnx::GraphProto* body = graph_attribute(n, "body")) {
      // opset 9+: body inputs are the node's (state, then scan inputs); opset 8 adds sequence_lens
      // first, which the body does not see.
      const int in = body->input_size(), node_in = n.input_size();
      if (in != node_in - (opset == 8 ? 1 : 0))
        return node_label(n, index) + ": its body has " + std::to_string(in) + " inputs for the node's " +
               std::to_string(node_in);
      if (body->output_size() < n.output_size())
        return node_label(n, index) + ": its body has " + std::to_string(body->output_size()) +
               " outputs for the node's " + std::to_string(n.output_size());
    }
  }
  if (op == "Loop") {
    if (const onnx::GraphProto* body = graph_attribute(n, "body")) {
      // The body takes (iteration, condition, carried...); the node's M and cond may be left off
      // at the end when nothing is carried.
      const int expected = 2 + std::max(0, n.input_size() - 2);
      if (body->input_size() != expected)
        return node_label(n, index) + ": its body has " + std::to_string(body->input_size()) +
               " inputs for the node's " + std::to_string(n.input_size()) + " (expected " +
               std::to_string(expected) + ")";
      if (body->output_size() < n.output_size() + 1)
        return node_label(n, index) + ": its body has " + std::to_string(body->output_size()) +
               " outputs for the node's " + std::to_string(n.output_size()) + " (+1 condition)";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> find_inference_hazard(const onnx::GraphProto& graph, int64_t opset) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& n = graph.node(i);
    if (auto h = node_hazard(n, i, opset)) return h;
    for (const auto& a : n.attribute()) {
      if (a.has_g())
        if (auto h = find_inference_hazard(a.g(), opset)) return h;
      for (const auto& g : a.graphs())
        if (auto h = find_inference_hazard(g, opset)) return h;
    }
  }
  return std::nullopt;
}

namespace {

// The types inference wrote into `g` and its subgraphs, without the weights: each node keeps only
// its graph attributes (so the reply stays small on a model of Constant weights).
void keep_types_only(onnx::GraphProto& g) {
  g.clear_initializer();
  g.clear_sparse_initializer();
  for (auto& n : *g.mutable_node()) {
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> graphs;
    for (auto& a : *n.mutable_attribute())
      if (a.has_g() || a.graphs_size() > 0) {
        if (a.has_g()) keep_types_only(*a.mutable_g());
        for (auto& sg : *a.mutable_graphs()) keep_types_only(sg);
        *graphs.Add() = std::move(a);
      }
    n.mutable_attribute()->Swap(&graphs);
  }
}

}  // namespace

Result<InferredTypes> infer_shapes_guarded(const onnx::ModelProto& model, const std::string& origin,
                                           bool strict, bool with_subgraphs) {
  // Built once here, not in every child (the registry is a static the children then share).
  (void)onnx::OpSchemaRegistry::Schema("Conv", 17, "");
  auto work = [&model, strict, with_subgraphs]() -> std::string {
    // The child's own copy-on-write view: inference writes into it, the parent's stays as it was.
    auto& m = const_cast<onnx::ModelProto&>(model);
    std::optional<std::string> failure;
    try {
      onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(strict, strict ? 1 : 0));
    } catch (const std::exception& e) {
      failure = e.what();
    }
    onnx::GraphProto g;
    if (!failure && with_subgraphs) {
      g = std::move(*m.mutable_graph());
      keep_types_only(g);
    } else if (!failure) {
      *g.mutable_value_info() = m.graph().value_info();
      *g.mutable_output() = m.graph().output();
    }
    return encode(failure, g);
  };
  ForkedCallOptions o;
  o.stage = Stage::load_model;
  o.what = origin + ": ONNX shape inference";
  o.hint =
      "the model is malformed in a way Parity does not name; `parity inspect` and "
      "onnx.checker.check_model(m, full_check=True) may say where";
  PARITY_ASSIGN_OR_RETURN(bytes, call_forked(work, o));
  std::optional<InferredTypes> t = decode(bytes);
  if (!t)
    return make_error(ErrorKind::internal, Stage::load_model,
                      origin + ": shape inference sent a damaged reply");
  return std::move(*t);
}

}  // namespace parity::model::detail
