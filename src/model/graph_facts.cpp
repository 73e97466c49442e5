#include "model/graph_facts.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "model/model_surgery.h"
#include "model/onnx_model.h"
#include "model/proto_io.h"

namespace parity::model {
namespace {

Attribute attribute_of(const onnx::AttributeProto& a) {
  Attribute out;
  using T = onnx::AttributeProto;
  switch (a.type()) {
    case T::INT: out.kind = Attribute::Kind::integer, out.i = a.i(); break;
    case T::INTS:
      out.kind = Attribute::Kind::integers, out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case T::FLOAT: out.kind = Attribute::Kind::real, out.f = a.f(); break;
    case T::FLOATS:
      out.kind = Attribute::Kind::reals, out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case T::STRING: out.kind = Attribute::Kind::text, out.s = a.s(); break;
    case T::TENSOR: out.kind = Attribute::Kind::tensor; break;
    case T::GRAPH:
    case T::GRAPHS: out.kind = Attribute::Kind::graph; break;
    default: break;
  }
  return out;
}

ConstantFact constant_of(const onnx::TensorProto& t, const std::string& origin, const std::string& node) {
  ConstantFact c;
  c.node = node;
  c.dims.assign(t.dims().begin(), t.dims().end());
  if (auto dtype = dtype_from_onnx(t.data_type())) c.dtype = *dtype;
  const int64_t n = shape_numel(c.dims);
  if (n >= 0 && n <= GraphFacts::kMaxReadElements && t.data_location() != onnx::TensorProto::EXTERNAL)
    if (auto value = detail::tensor_from_proto(t, origin); value.ok()) c.value = std::move(value->tensor);
  return c;
}

std::size_t nodes_below(const onnx::NodeProto& n) {
  std::size_t count = 0;
  for (const auto& a : n.attribute()) {
    auto add = [&count](const onnx::GraphProto& sub) {
      count += static_cast<std::size_t>(sub.node_size());
      for (const auto& inner : sub.node()) count += nodes_below(inner);
    };
    if (a.has_g()) add(a.g());
    for (const auto& sub : a.graphs()) add(sub);
  }
  return count;
}

FactNode fact_node(const onnx::NodeProto& n, int k, const std::string& scope, GraphFacts& f) {
  FactNode node;
  node.index = static_cast<std::size_t>(k);
  node.name = n.name().empty() ? n.op_type() + "_" + std::to_string(k) : n.name();
  node.op_type = n.op_type();
  node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  node.subgraph_nodes = nodes_below(n);
  node.scope = scope;
  for (const auto& a : n.attribute()) {
    node.attributes[a.name()] = attribute_of(a);
    if (node.domain.empty() && n.op_type() == "Constant" && a.name() == "value" && a.has_t() &&
        n.output_size() == 1)
      f.constants[n.output(0)] = constant_of(a.t(), f.path.string(), node.name);
  }
  return node;
}

// The bodies of `n` into f.inner_nodes (and their initializers, Constant values and declared value
// types into the graph's maps: ONNX names are unique across scopes), depth first.
void read_bodies(const onnx::NodeProto& n, std::string owner, GraphFacts& f) {
  auto read = [&](const onnx::GraphProto& body, const std::string& scope) {
    for (const auto& t : body.initializer()) f.constants[t.name()] = constant_of(t, f.path.string(), "");
    for (const auto* values : {&body.value_info(), &body.output(), &body.input()})
      for (const auto& v : *values)
        if (v.has_type() && v.type().has_tensor_type())
          if (auto t = dtype_from_onnx(v.type().tensor_type().elem_type()))
            f.value_types.emplace(v.name(), *t);
    for (int k = 0; k < body.node_size(); ++k) {
      FactNode inner = fact_node(body.node(k), k, scope, f);
      const std::string name = inner.name;  // a copy: the recursion grows inner_nodes
      f.inner_nodes.push_back(std::move(inner));
      read_bodies(body.node(k), name, f);
    }
  };
  for (const auto& a : n.attribute()) {
    if (a.has_g()) read(a.g(), owner + "/" + a.name());
    for (int k = 0; k < a.graphs_size(); ++k)
      read(a.graphs(k), owner + "/" + a.name() + "[" + std::to_string(k) + "]");
  }
}

void read_nodes(const onnx::GraphProto& g, GraphFacts& f) {
  std::unordered_set<std::string> defined(f.graph_inputs.begin(), f.graph_inputs.end());
  for (const auto& init : g.initializer()) defined.insert(init.name());
  std::unordered_set<std::string> produced_later;
  for (const auto& n : g.node())
    for (const auto& o : n.output()) produced_later.insert(o);
  for (int k = 0; k < g.node_size(); ++k) {
    const onnx::NodeProto& n = g.node(k);
    FactNode node = fact_node(n, k, "", f);
    read_bodies(n, node.name, f);
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in) && produced_later.count(in) && !f.first_out_of_order) {
        f.first_out_of_order = node.index;
        f.out_of_order_value = in;
      }
    for (const auto& o : n.output()) defined.insert(o);
    f.nodes.push_back(std::move(node));
  }
}

}  // namespace

const FactNode* GraphFacts::producer(const std::string& value) const {
  for (const auto& n : nodes)
    for (const auto& o : n.outputs)
      if (o == value) return &n;
  return nullptr;
}

DType GraphFacts::type_of(const std::string& value) const {
  const auto it = value_types.find(value);
  return it == value_types.end() ? DType::undefined : it->second;
}

std::optional<Shape> GraphFacts::shape_of(const std::string& value) const {
  if (const auto c = constants.find(value); c != constants.end()) return c->second.dims;
  const auto it = value_shapes.find(value);
  return it == value_shapes.end() ? std::nullopt : std::optional<Shape>(it->second);
}

const Tensor* GraphFacts::constant_value(const std::string& value) const {
  const auto it = constants.find(value);
  return it == constants.end() || !it->second.value ? nullptr : &*it->second.value;
}

std::set<std::string> constant_nodes(const GraphFacts& f) {
  std::set<std::string> values, nodes;
  for (const auto& [name, c] : f.constants) values.insert(name);
  for (const auto& n : f.nodes) {
    const bool all_constant = std::all_of(n.inputs.begin(), n.inputs.end(),
                                          [&](const auto& in) { return in.empty() || values.count(in) > 0; });
    if (!all_constant || (n.inputs.empty() && !(n.domain.empty() && n.op_type == "Constant"))) continue;
    nodes.insert(n.name);
    for (const auto& o : n.outputs) values.insert(o);
  }
  return nodes;
}

namespace {

Result<GraphFacts> read_graph_facts_unguarded(const std::filesystem::path& path) {
  PARITY_ASSIGN_OR_RETURN(info, inspect_model(path));  // the precise diagnosis of a bad file
  // Element types and shapes of every value, from the model and ONNX shape inference (surgery
  // sorts a copy first, so an unsorted file is typed too).
  PARITY_ASSIGN_OR_RETURN(surgery, ModelSurgery::open(path));
  GraphFacts f;
  f.path = path;
  f.ir_version = info.ir_version;
  f.opsets = info.opsets;
  for (const auto& in : info.inputs) {
    f.graph_inputs.push_back(in.name);
    if (in.dtype != DType::undefined) f.value_types[in.name] = in.dtype;
    if (in.has_shape) {
      Shape dims;
      for (const auto& d : in.dims) dims.push_back(d.is_fixed() ? d.value : -1);
      f.value_shapes[in.name] = std::move(dims);
    }
  }
  for (const auto& out : info.outputs) f.graph_outputs.push_back(out.name);
  for (const auto& t : surgery.outline().tensors) {
    if (t.dtype != DType::undefined) f.value_types[t.tensor] = t.dtype;
    if (t.shape) f.value_shapes[t.tensor] = *t.shape;
  }
  onnx::ModelProto m;
  try {
    PARITY_ASSIGN_OR_RETURN(bytes, detail::read_file(path, Stage::load_model, "model"));
    if (!detail::parse_message(bytes, m))
      return make_error(ErrorKind::bad_input, Stage::load_model, path.string() + ": not an ONNX model");
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::oom, Stage::load_model, path.string() + ": out of memory parsing the model");
  }
  const onnx::GraphProto& g = m.graph();
  for (const auto& init : g.initializer()) {
    f.constants[init.name()] = constant_of(init, path.string(), "");
    f.value_types[init.name()] = f.constants[init.name()].dtype;
  }
  read_nodes(g, f);
  for (const auto& [name, c] : f.constants) f.value_types[name] = c.dtype;
  return f;
}

}  // namespace

Result<GraphFacts> read_graph_facts(const std::filesystem::path& path) {
  // The module's border: nothing an untrusted file provokes may leave as an exception.
  return detail::at_model_border(path, [&] { return read_graph_facts_unguarded(path); });
}

}  // namespace parity::model
