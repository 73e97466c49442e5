#include "model/model_surgery.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <fstream>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "model/onnx_model.h"
#include "model/proto_io.h"

namespace parity::model {
namespace {

Error bad(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::load_model, std::move(message), std::move(hint));
}

std::string node_op(const onnx::NodeProto& n) {
  const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
  return default_domain ? n.op_type() : n.domain() + ":" + n.op_type();
}

bool has_graph_attribute(const onnx::NodeProto& n) {
  return std::any_of(n.attribute().begin(), n.attribute().end(),
                     [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size() > 0; });
}

// Names an inner graph reads but does not define, and its node count, recursively: the outer
// values an If/Loop/Scan captures must become inputs when the node is cut out.
void scan_subgraph(const onnx::GraphProto& g, std::unordered_set<std::string> defined,
                   std::vector<std::string>& reads, int& inner_nodes) {
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& i : g.initializer()) defined.insert(i.name());
  for (const auto& n : g.node()) {
    ++inner_nodes;
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in)) reads.push_back(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) scan_subgraph(a.g(), defined, reads, inner_nodes);
      for (const auto& sg : a.graphs()) scan_subgraph(sg, defined, reads, inner_nodes);
    }
    for (const auto& out : n.output()) defined.insert(out);
  }
}

// Ops whose output element type is their first input's: the last resort when neither the model
// nor shape inference typed a value (custom opsets newer than the ONNX library we link).
bool preserves_type(const std::string& op) {
  static constexpr std::string_view kOps[] = {"Abs",
                                              "Add",
                                              "AveragePool",
                                              "BatchNormalization",
                                              "Ceil",
                                              "Clip",
                                              "Concat",
                                              "Conv",
                                              "ConvTranspose",
                                              "Cos",
                                              "Div",
                                              "Dropout",
                                              "Elu",
                                              "Erf",
                                              "Exp",
                                              "Expand",
                                              "Flatten",
                                              "Floor",
                                              "Gather",
                                              "GatherElements",
                                              "GatherND",
                                              "Gelu",
                                              "Gemm",
                                              "GlobalAveragePool",
                                              "GlobalMaxPool",
                                              "HardSigmoid",
                                              "HardSwish",
                                              "Identity",
                                              "InstanceNormalization",
                                              "LayerNormalization",
                                              "LeakyRelu",
                                              "Log",
                                              "LogSoftmax",
                                              "MatMul",
                                              "Max",
                                              "MaxPool",
                                              "Mean",
                                              "Min",
                                              "Mod",
                                              "Mul",
                                              "Neg",
                                              "Pad",
                                              "Pow",
                                              "PRelu",
                                              "Reciprocal",
                                              "ReduceMax",
                                              "ReduceMean",
                                              "ReduceMin",
                                              "ReduceProd",
                                              "ReduceSum",
                                              "Relu",
                                              "Reshape",
                                              "Resize",
                                              "Round",
                                              "Selu",
                                              "Sigmoid",
                                              "Sign",
                                              "Sin",
                                              "Slice",
                                              "Softmax",
                                              "Softplus",
                                              "Split",
                                              "Sqrt",
                                              "Squeeze",
                                              "Sub",
                                              "Sum",
                                              "Tanh",
                                              "Tile",
                                              "Transpose",
                                              "Unsqueeze",
                                              "Where",
                                              "Sqrt",
                                              "SkipLayerNormalization",
                                              "FastGelu"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

int32_t elem_type_of(const onnx::ValueInfoProto& v) {
  return v.has_type() && v.type().has_tensor_type() ? v.type().tensor_type().elem_type() : 0;
}

std::optional<Shape> static_shape(const onnx::ValueInfoProto& v) {
  if (!v.has_type() || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
    return std::nullopt;
  Shape s;
  for (const auto& d : v.type().tensor_type().shape().dim())
    s.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return s;
}

}  // namespace

const NodeOutput* GraphOutline::find_tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.tensor == name) return &t;
  return nullptr;
}

int GraphOutline::producer_of(const std::string& tensor) const {
  const NodeOutput* t = find_tensor(tensor);
  return t ? t->order : -1;
}

struct ModelSurgery::Impl {
  onnx::ModelProto model;  // nodes reordered topologically
  GraphOutline outline;
  std::unordered_map<std::string, int32_t> elem_types;  // every known value -> ONNX element type
};

ModelSurgery::ModelSurgery(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModelSurgery::~ModelSurgery() = default;
ModelSurgery::ModelSurgery(ModelSurgery&&) noexcept = default;
ModelSurgery& ModelSurgery::operator=(ModelSurgery&&) noexcept = default;
const GraphOutline& ModelSurgery::outline() const { return impl_->outline; }

Result<ModelSurgery> ModelSurgery::open(const std::filesystem::path& path) {
  // inspect_model gives the precise diagnosis for unreadable or malformed files.
  PARITY_TRY(inspect_model(path));
  auto impl = std::make_unique<Impl>();
  try {
    PARITY_ASSIGN_OR_RETURN(bytes, detail::read_file(path, Stage::load_model, "model"));
    if (!detail::parse_message(bytes, impl->model)) return bad(path.string() + ": not an ONNX model");
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::oom, Stage::load_model, path.string() + ": out of memory parsing the model");
  }
  onnx::GraphProto& g = *impl->model.mutable_graph();
  GraphOutline& out = impl->outline;

  for (const auto& init : g.initializer()) {
    out.initializers.insert(init.name());
    impl->elem_types[init.name()] = init.data_type();
  }
  for (const auto& in : g.input()) {
    impl->elem_types[in.name()] = elem_type_of(in);
    if (!out.initializers.count(in.name())) out.graph_inputs.push_back(in.name());
  }
  for (const auto& o : g.output()) out.graph_outputs.push_back(o.name());

  // Kahn's algorithm, always taking the lowest original index that is ready, so an already
  // sorted graph (the ONNX rule) keeps its order exactly.
  const int n = g.node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto& o : g.node(i).output())
      if (!o.empty()) producer[o] = i;
  std::vector<std::vector<std::string>> reads(n);
  std::vector<int> inner_counts(n, 0);
  for (int i = 0; i < n; ++i) {
    const auto& node = g.node(i);
    for (const auto& in : node.input())
      if (!in.empty()) reads[i].push_back(in);
    for (const auto& a : node.attribute()) {
      std::vector<std::string> outer;
      if (a.has_g()) scan_subgraph(a.g(), {}, outer, inner_counts[i]);
      for (const auto& sg : a.graphs()) scan_subgraph(sg, {}, outer, inner_counts[i]);
      reads[i].insert(reads[i].end(), outer.begin(), outer.end());
    }
  }
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    std::unordered_set<int> deps;
    for (const auto& r : reads[i])
      if (auto it = producer.find(r); it != producer.end() && it->second != i) deps.insert(it->second);
    pending[i] = static_cast<int>(deps.size());
    for (int d : deps) consumers[d].push_back(i);
  }
  std::set<int> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) ready.insert(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (int c : consumers[i])
      if (--pending[c] == 0) ready.insert(c);
  }
  if (static_cast<int>(order.size()) != n)
    return bad(path.string() + ": the graph has a cycle (" + std::to_string(n - order.size()) +
                   " nodes never ready)",
               "check the exporter; ONNX graphs must be acyclic");

  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int i : order) *sorted.Add() = g.node(i);
  std::vector<std::vector<std::string>> sorted_reads;
  std::vector<int> sorted_inner;
  for (int i : order) {
    sorted_reads.push_back(reads[i]);
    sorted_inner.push_back(inner_counts[i]);
  }
  g.mutable_node()->Swap(&sorted);

  // Types: value_info and outputs first, then what shape inference adds on a scratch copy (it may
  // throw on models newer than the library; then we simply know less).
  std::unordered_map<std::string, const onnx::ValueInfoProto*> declared;
  for (const auto& v : g.value_info()) declared[v.name()] = &v;
  for (const auto& v : g.output()) declared[v.name()] = &v;
  onnx::ModelProto inferred = impl->model;
  try {
    onnx::shape_inference::InferShapes(inferred);
  } catch (const std::exception&) {
    inferred.mutable_graph()->clear_value_info();
  }
  std::unordered_map<std::string, const onnx::ValueInfoProto*> guessed;
  for (const auto& v : inferred.graph().value_info()) guessed[v.name()] = &v;
  for (const auto& [name, v] : declared)
    if (elem_type_of(*v) != 0) impl->elem_types[name] = elem_type_of(*v);
  for (const auto& [name, v] : guessed)
    if (elem_type_of(*v) != 0 && !impl->elem_types.count(name)) impl->elem_types[name] = elem_type_of(*v);

  for (int k = 0; k < n; ++k) {
    const auto& node = g.node(k);
    GraphNode gn;
    gn.name = node.name().empty() ? node.op_type() + "_" + std::to_string(k) : node.name();
    gn.op_type = node_op(node);
    gn.inputs.assign(node.input().begin(), node.input().end());
    gn.outputs.assign(node.output().begin(), node.output().end());
    gn.has_subgraph = has_graph_attribute(node);
    if (gn.has_subgraph) {
      std::unordered_set<std::string> seen(gn.inputs.begin(), gn.inputs.end());
      for (const auto& r : sorted_reads[k])
        if (seen.insert(r).second) gn.outer_inputs.push_back(r);
      out.skipped_subgraphs.push_back(gn.name + " (" + gn.op_type + "): " + std::to_string(sorted_inner[k]) +
                                      " inner nodes not exposed");
    }
    for (const auto& o : node.output()) {
      if (o.empty()) continue;
      if (!impl->elem_types.count(o)) {
        // Last resort, so a graph typed only at its borders can still be exposed.
        int32_t t = 0;
        if (node.op_type() == "Cast") {
          for (const auto& a : node.attribute())
            if (a.name() == "to") t = static_cast<int32_t>(a.i());
        } else if (node.op_type() == "DequantizeLinear" && node.input_size() > 1) {
          t = impl->elem_types.count(node.input(1)) ? impl->elem_types[node.input(1)] : 0;
        } else if (node.op_type() == "Shape" || node.op_type() == "Size" || node.op_type() == "ArgMax" ||
                   node.op_type() == "ArgMin" || node.op_type() == "NonZero") {
          t = static_cast<int32_t>(DType::int64);
        } else if (preserves_type(node.op_type()) && node.input_size() > 0) {
          const std::string& first =
              node.op_type() == "Where" && node.input_size() > 1 ? node.input(1) : node.input(0);
          if (auto it = impl->elem_types.find(first); it != impl->elem_types.end()) t = it->second;
        }
        if (t != 0) impl->elem_types[o] = t;
      }
      NodeOutput no;
      no.tensor = o;
      no.node = gn.name;
      no.op_type = gn.op_type;
      no.order = k;
      if (auto it = impl->elem_types.find(o); it != impl->elem_types.end())
        no.dtype = dtype_from_onnx(it->second).value_or(DType::undefined);
      if (auto it = declared.find(o); it != declared.end()) no.shape = static_shape(*it->second);
      if (!no.shape)
        if (auto it = guessed.find(o); it != guessed.end()) no.shape = static_shape(*it->second);
      out.tensors.push_back(std::move(no));
    }
    out.nodes.push_back(std::move(gn));
  }
  return ModelSurgery(std::move(impl));
}

namespace {

Status save_model(const onnx::ModelProto& m, const std::filesystem::path& dst) {
  std::string bytes;
  if (!m.SerializeToString(&bytes))
    return make_error(ErrorKind::internal, Stage::write_output,
                      "cannot serialize the model for " + dst.string());
  std::ofstream f(dst, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f)
    return make_error(ErrorKind::io, Stage::write_output, "cannot write " + dst.string(),
                      "check the disk space");
  return ok_status();
}

void set_type(onnx::ValueInfoProto& v, const std::string& name, int32_t elem_type,
              const std::optional<Shape>& shape) {
  v.set_name(name);
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  if (shape) {
    auto* s = t->mutable_shape();
    for (int64_t d : *shape) s->add_dim()->set_dim_value(d);
  }
}

}  // namespace

Status ModelSurgery::write_exposed(const std::filesystem::path& dst,
                                   const std::vector<std::string>& tensors) const {
  onnx::ModelProto m = impl_->model;
  onnx::GraphProto& g = *m.mutable_graph();
  std::unordered_set<std::string> present;
  for (const auto& o : g.output()) present.insert(o.name());
  for (const auto& name : tensors) {
    if (!present.insert(name).second) continue;
    if (!impl_->outline.find_tensor(name))
      return bad("cannot expose '" + name + "': no top-level node produces it");
    auto it = impl_->elem_types.find(name);
    if (it == impl_->elem_types.end() || it->second == 0)
      return bad("cannot expose '" + name + "': its element type is unknown",
                 "add value_info for it to the model (onnx.shape_inference.infer_shapes)");
    set_type(*g.add_output(), name, it->second, std::nullopt);
  }
  return save_model(m, dst);
}

Result<std::vector<std::string>> ModelSurgery::write_subgraph(
    const std::filesystem::path& dst, const std::vector<int>& node_indices,
    const std::vector<std::string>& outputs, const std::map<std::string, Shape>& input_shapes) const {
  const onnx::GraphProto& src = impl_->model.graph();
  std::vector<int> chosen = node_indices;
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  if (chosen.empty()) return bad("cannot extract an empty subgraph");

  onnx::ModelProto m = impl_->model;
  onnx::GraphProto& g = *m.mutable_graph();
  g.clear_node();
  g.clear_input();
  g.clear_output();
  g.clear_initializer();
  g.clear_value_info();
  g.clear_sparse_initializer();
  g.set_name(src.name() + "_extract");

  std::unordered_set<std::string> produced;
  std::vector<std::string> needed;
  std::unordered_set<std::string> needed_set;
  for (int i : chosen) {
    if (i < 0 || i >= src.node_size()) return bad("node index " + std::to_string(i) + " is out of range");
    const GraphNode& gn = impl_->outline.nodes[static_cast<std::size_t>(i)];
    auto* node = g.add_node();
    *node = src.node(i);
    if (node->name().empty()) node->set_name(gn.name);  // so the repro names what bisect named
    std::vector<std::string> reads = gn.inputs;
    reads.insert(reads.end(), gn.outer_inputs.begin(), gn.outer_inputs.end());
    for (const auto& r : reads)
      if (!r.empty() && !produced.count(r) && needed_set.insert(r).second) needed.push_back(r);
    for (const auto& o : gn.outputs)
      if (!o.empty()) produced.insert(o);
  }
  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& init : src.initializer()) inits[init.name()] = &init;
  std::vector<std::string> graph_inputs;
  for (const auto& name : needed) {
    if (produced.count(name)) continue;  // read before it is produced only inside a subgraph scope
    if (auto it = inits.find(name); it != inits.end()) {
      *g.add_initializer() = *it->second;
      continue;
    }
    auto t = impl_->elem_types.find(name);
    if (t == impl_->elem_types.end() || t->second == 0)
      return bad("cannot extract: input '" + name + "' is untyped");
    std::optional<Shape> shape;
    if (auto s = input_shapes.find(name); s != input_shapes.end()) shape = s->second;
    set_type(*g.add_input(), name, t->second, shape);
    graph_inputs.push_back(name);
  }
  for (const auto& o : outputs) {
    if (!produced.count(o))
      return bad("cannot extract: output '" + o + "' is not produced by the chosen nodes");
    auto t = impl_->elem_types.find(o);
    if (t == impl_->elem_types.end() || t->second == 0)
      return bad("cannot extract: output '" + o + "' is untyped");
    set_type(*g.add_output(), o, t->second, std::nullopt);
  }
  PARITY_TRY(save_model(m, dst));
  return graph_inputs;
}

}  // namespace parity::model
