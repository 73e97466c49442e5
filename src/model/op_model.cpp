#include "model/op_model.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "core/file_io.h"
#include "model/tensor_proto.h"

namespace parity::model {
namespace {

Error invalid(const OpModel& op, const std::string& why) {
  return make_error(ErrorKind::bad_input, Stage::parse_args,
                    (is_graph(op) ? "graph" : op.op_type) + " model: " + why,
                    "check the op's attributes and input shapes against its ONNX schema");
}

void set_type(onnx::ValueInfoProto* v, const std::string& name, DType dtype, const Shape& shape) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(static_cast<int32_t>(dtype));
  auto* s = t->mutable_shape();
  for (int64_t d : shape) s->add_dim()->set_dim_value(d);
}

void set_attribute(onnx::AttributeProto* a, const std::string& name, const Attribute& value) {
  a->set_name(name);
  using K = Attribute::Kind;
  switch (value.kind) {
    case K::integer:
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(value.i);
      break;
    case K::integers:
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : value.ints) a->add_ints(v);
      break;
    case K::real:
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(static_cast<float>(value.f));
      break;
    case K::reals:
      a->set_type(onnx::AttributeProto::FLOATS);
      for (double v : value.floats) a->add_floats(static_cast<float>(v));
      break;
    case K::text:
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(value.s);
      break;
    default: break;  // tensors and graphs: not what a one-op search varies
  }
}

// A graph input (no value) or an initializer; "" leaves an optional input out.
Status add_input(const OpModel& op, onnx::GraphProto* g, const OpInput& in) {
  if (in.name.empty()) return ok_status();
  if (!in.value) {
    set_type(g->add_input(), in.name, in.dtype, in.shape);
    return ok_status();
  }
  if (!g->add_initializer()->ParseFromString(serialize_tensor_proto({in.name, *in.value})))
    return invalid(op, "initializer " + in.name + " does not serialize");
  return ok_status();
}

// `m` with `outputs` as its graph outputs, typed as ONNX infers them, and checked; a description the
// schema rejects stops here.
Result<std::string> typed_and_checked(const OpModel& op, onnx::ModelProto& m,
                                      const std::vector<std::string>& outputs) {
  try {
    onnx::ModelProto inferred = m;
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
    for (const std::string& out : outputs) {
      if (out.empty()) continue;  // an optional output left out
      const onnx::ValueInfoProto* found = nullptr;
      for (const auto& v : inferred.graph().value_info())
        if (v.name() == out) found = &v;
      if (!found || !found->type().has_tensor_type())
        return invalid(op, "shape inference gives no type for output " + out);
      *m.mutable_graph()->add_output() = *found;
    }
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    return invalid(op, e.what());
  }
  return m.SerializeAsString();
}

}  // namespace

Attribute int_attribute(int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::integer;
  a.i = v;
  return a;
}
Attribute ints_attribute(std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::integers;
  a.ints = std::move(v);
  return a;
}
Attribute float_attribute(double v) {
  Attribute a;
  a.kind = Attribute::Kind::real;
  a.f = v;
  return a;
}
Attribute text_attribute(std::string v) {
  Attribute a;
  a.kind = Attribute::Kind::text;
  a.s = std::move(v);
  return a;
}

Result<std::string> op_model_bytes(const OpModel& op) {
  onnx::ModelProto m;
  // The IR version each opset came with: ONNX Runtime refuses an opset newer than its IR.
  m.set_ir_version(op.opset >= 21 ? 10 : op.opset >= 19 ? 9 : 8);
  m.set_producer_name("parity-op-model");
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(op.opset);
  if (!op.domain.empty()) {  // a runtime's own op (com.microsoft): its domain at version 1
    auto* own = m.add_opset_import();
    own->set_domain(op.domain);
    own->set_version(1);
  }
  auto* g = m.mutable_graph();
  g->set_name(is_graph(op) ? "graph" : op.op_type + "_model");
  if (is_graph(op)) {
    if (!op.tail.empty()) return invalid(op, "a graph has no tail: chain its nodes");
    for (const OpInput& in : op.inputs) PARITY_TRY(add_input(op, g, in));
    for (const OpNode& n : op.nodes) {
      auto* node = g->add_node();
      node->set_op_type(n.op_type);
      node->set_name(n.name);
      for (const auto& i : n.inputs) node->add_input(i);
      for (const auto& o : n.outputs) node->add_output(o);
      for (const auto& [name, value] : n.attributes) set_attribute(node->add_attribute(), name, value);
    }
    return typed_and_checked(op, m, op.outputs);
  }
  auto* node = g->add_node();
  node->set_op_type(op.op_type);
  node->set_domain(op.domain);
  node->set_name(op.op_type + "_0");
  for (const OpInput& in : op.inputs) {
    node->add_input(in.name);
    PARITY_TRY(add_input(op, g, in));
  }
  for (const auto& [name, value] : op.attributes) set_attribute(node->add_attribute(), name, value);
  for (const std::string& out : op.outputs) node->add_output(out);
  std::vector<std::string> graph_outputs = op.outputs;
  const auto names = op_node_names(op);
  for (std::size_t k = 0; k < op.tail.size(); ++k) {
    if (op.outputs.empty()) return invalid(op, "a chained node needs an output to read");
    const OpTail& t = op.tail[k];
    auto* next = g->add_node();
    next->set_op_type(t.op_type);
    next->set_name(names[k + 1]);
    next->add_input(graph_outputs[0]);
    for (std::size_t c = 0; c < t.constants.size(); ++c) {
      const std::string name = names[k + 1] + "_c" + std::to_string(c);
      next->add_input(name);
      if (!t.constants[c].value ||
          !g->add_initializer()->ParseFromString(serialize_tensor_proto({name, *t.constants[c].value})))
        return invalid(op, "constant " + name + " has no value that serializes");
    }
    for (const auto& [name, value] : t.attributes) set_attribute(next->add_attribute(), name, value);
    graph_outputs[0] = names[k + 1] + "_out";
    next->add_output(graph_outputs[0]);
  }
  if (op.opset > kMaxCheckedOpset || !op.domain.empty()) {
    if (op.output_types.size() != op.outputs.size())
      return invalid(op, "opset " + std::to_string(op.opset) + " is newer than this ONNX library checks (" +
                             std::to_string(kMaxCheckedOpset) + "): give every output's type");
    // A chained node keeps its input's type: the last one's output is typed as outputs[0].
    for (std::size_t i = 0; i < graph_outputs.size(); ++i)
      if (!graph_outputs[i].empty())  // an optional output left out
        set_type(g->add_output(), graph_outputs[i], op.output_types[i].dtype, op.output_types[i].shape);
    return m.SerializeAsString();
  }
  return typed_and_checked(op, m, graph_outputs);
}

std::vector<std::string> op_node_names(const OpModel& op) {
  if (is_graph(op)) {
    std::vector<std::string> names;
    for (const auto& n : op.nodes) names.push_back(n.name);
    return names;
  }
  std::vector<std::string> names{op.op_type + "_0"};
  for (std::size_t k = 0; k < op.tail.size(); ++k)
    names.push_back(op.tail[k].op_type + "_" + std::to_string(k + 1));
  return names;
}

Status write_op_model(const OpModel& op, const std::filesystem::path& path) {
  PARITY_ASSIGN_OR_RETURN(bytes, op_model_bytes(op));
  return write_text_file(path, bytes);  // already serialized: no parse and serialize again
}

}  // namespace parity::model
