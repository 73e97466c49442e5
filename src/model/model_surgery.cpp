#include "model/model_surgery.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "model/external_data.h"
#include "model/guarded_inference.h"
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

using ElemTypes = std::unordered_map<std::string, int32_t>;  // value name -> ONNX element type

Status parse_model(const std::filesystem::path& path, onnx::ModelProto& model) {
  try {
    PARITY_ASSIGN_OR_RETURN(bytes, detail::read_file(path, Stage::load_model, "model"));
    if (!detail::parse_message(bytes, model)) return bad(path.string() + ": not an ONNX model");
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::oom, Stage::load_model, path.string() + ": out of memory parsing the model");
  }
  return ok_status();
}

// The graph's initializers, inputs and outputs into `out`, and the types they declare.
void outline_borders(const onnx::GraphProto& g, GraphOutline& out, ElemTypes& elem_types) {
  for (const auto& init : g.initializer()) {
    out.initializers.insert(init.name());
    elem_types[init.name()] = init.data_type();
  }
  for (const auto& in : g.input()) {
    elem_types[in.name()] = elem_type_of(in);
    if (!out.initializers.count(in.name())) out.graph_inputs.push_back(in.name());
  }
  for (const auto& o : g.output()) out.graph_outputs.push_back(o.name());
}

// Per node, in one node order: the values it reads (its subgraphs' outer reads included) and
// how many nodes its subgraphs hold.
struct NodeReads {
  std::vector<std::vector<std::string>> reads;
  std::vector<int> inner_counts;
};

NodeReads collect_reads(const onnx::GraphProto& g) {
  const int n = g.node_size();
  NodeReads r{std::vector<std::vector<std::string>>(n), std::vector<int>(n, 0)};
  for (int i = 0; i < n; ++i) {
    const auto& node = g.node(i);
    for (const auto& in : node.input())
      if (!in.empty()) r.reads[i].push_back(in);
    for (const auto& a : node.attribute()) {
      std::vector<std::string> outer;
      if (a.has_g()) scan_subgraph(a.g(), {}, outer, r.inner_counts[i]);
      for (const auto& sg : a.graphs()) scan_subgraph(sg, {}, outer, r.inner_counts[i]);
      r.reads[i].insert(r.reads[i].end(), outer.begin(), outer.end());
    }
  }
  return r;
}

// Kahn's algorithm, always taking the lowest original index that is ready, so an already
// sorted graph (the ONNX rule) keeps its order exactly. A cycle is a bad_input Error.
Result<std::vector<int>> topological_order(const onnx::GraphProto& g,
                                           const std::vector<std::vector<std::string>>& reads,
                                           const std::filesystem::path& path) {
  const int n = g.node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto& o : g.node(i).output())
      if (!o.empty()) producer[o] = i;
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
  return order;
}

// Puts g's nodes in `order`; returns `reads` in that order too.
NodeReads sort_nodes(onnx::GraphProto& g, const std::vector<int>& order, const NodeReads& reads) {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int i : order) *sorted.Add() = g.node(i);
  NodeReads sorted_reads;
  for (int i : order) {
    sorted_reads.reads.push_back(reads.reads[i]);
    sorted_reads.inner_counts.push_back(reads.inner_counts[i]);
  }
  g.mutable_node()->Swap(&sorted);
  return sorted_reads;
}

// Where value types and shapes come from: the model's own value_info and outputs (`declared`,
// pointing into the model) and ONNX shape inference in a guarded child (`guessed`, pointing into
// `inferred`). Filled in place by collect_types, which the pointers require.
struct TypeSources {
  onnx::GraphProto inferred;  // value_info and outputs alone
  std::unordered_map<std::string, const onnx::ValueInfoProto*> declared, guessed;
};

// Types: value_info and outputs first, then what shape inference adds (it may throw on models newer
// than the library; then we simply know less). Inference crashing is an Error.
Status collect_types(const onnx::ModelProto& model, const std::filesystem::path& path, TypeSources& types,
                     ElemTypes& elem_types) {
  const onnx::GraphProto& g = model.graph();
  for (const auto& v : g.value_info()) types.declared[v.name()] = &v;
  for (const auto& v : g.output()) types.declared[v.name()] = &v;
  PARITY_ASSIGN_OR_RETURN(inferred, detail::infer_shapes_guarded(model, path.string()));
  types.inferred.Swap(inferred.graph.get());
  for (const auto& v : types.inferred.value_info()) types.guessed[v.name()] = &v;
  for (const auto& [name, v] : types.declared)
    if (elem_type_of(*v) != 0) elem_types[name] = elem_type_of(*v);
  for (const auto& [name, v] : types.guessed)
    if (elem_type_of(*v) != 0 && !elem_types.count(name)) elem_types[name] = elem_type_of(*v);
  return ok_status();
}

// The last resort for an output nothing typed, so a graph typed only at its borders can still be
// exposed: the type `node`'s op implies. 0 when unknown.
int32_t implied_elem_type(const onnx::NodeProto& node, ElemTypes& elem_types) {
  int32_t t = 0;
  if (node.op_type() == "Cast") {
    for (const auto& a : node.attribute())
      if (a.name() == "to") t = static_cast<int32_t>(a.i());
  } else if (node.op_type() == "DequantizeLinear" && node.input_size() > 1) {
    t = elem_types.count(node.input(1)) ? elem_types[node.input(1)] : 0;
  } else if (node.op_type() == "Shape" || node.op_type() == "Size" || node.op_type() == "ArgMax" ||
             node.op_type() == "ArgMin" || node.op_type() == "NonZero") {
    t = static_cast<int32_t>(DType::int64);
  } else if (preserves_type(node.op_type()) && node.input_size() > 0) {
    const std::string& first =
        node.op_type() == "Where" && node.input_size() > 1 ? node.input(1) : node.input(0);
    if (auto it = elem_types.find(first); it != elem_types.end()) t = it->second;
  }
  return t;
}

// Adds node `k` (topological order) and its outputs to `out`, typing outputs nothing typed yet.
void outline_node(int k, const onnx::NodeProto& node, const std::vector<std::string>& reads, int inner_nodes,
                  const TypeSources& types, GraphOutline& out, ElemTypes& elem_types) {
  GraphNode gn;
  gn.name = node.name().empty() ? node.op_type() + "_" + std::to_string(k) : node.name();
  gn.op_type = node_op(node);
  gn.inputs.assign(node.input().begin(), node.input().end());
  gn.outputs.assign(node.output().begin(), node.output().end());
  gn.has_subgraph = has_graph_attribute(node);
  if (gn.has_subgraph) {
    std::unordered_set<std::string> seen(gn.inputs.begin(), gn.inputs.end());
    for (const auto& r : reads)
      if (seen.insert(r).second) gn.outer_inputs.push_back(r);
    out.skipped_subgraphs.push_back(gn.name + " (" + gn.op_type + "): " + std::to_string(inner_nodes) +
                                    " inner nodes not exposed");
  }
  for (const auto& o : node.output()) {
    if (o.empty()) continue;
    if (!elem_types.count(o))
      if (const int32_t t = implied_elem_type(node, elem_types); t != 0) elem_types[o] = t;
    NodeOutput no;
    no.tensor = o;
    no.node = gn.name;
    no.op_type = gn.op_type;
    no.order = k;
    if (auto it = elem_types.find(o); it != elem_types.end())
      no.dtype = dtype_from_onnx(it->second).value_or(DType::undefined);
    if (auto it = types.declared.find(o); it != types.declared.end()) no.shape = static_shape(*it->second);
    if (!no.shape)
      if (auto it = types.guessed.find(o); it != types.guessed.end()) no.shape = static_shape(*it->second);
    out.tensors.push_back(std::move(no));
  }
  out.nodes.push_back(std::move(gn));
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
  std::filesystem::path source;  // the file parsed, and its size then (exposed copies start from it)
  std::uintmax_t source_size = 0;
  onnx::ModelProto model;  // nodes reordered topologically
  GraphOutline outline;
  std::unordered_map<std::string, int32_t> elem_types;  // every known value -> ONNX element type
  std::vector<std::string> external_files;              // ModelInfo::external_files of `source`
};

ModelSurgery::ModelSurgery(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModelSurgery::~ModelSurgery() = default;
ModelSurgery::ModelSurgery(ModelSurgery&&) noexcept = default;
ModelSurgery& ModelSurgery::operator=(ModelSurgery&&) noexcept = default;
const GraphOutline& ModelSurgery::outline() const { return impl_->outline; }

Result<ModelSurgery> ModelSurgery::open_unguarded(const std::filesystem::path& path) {
  // inspect_model gives the precise diagnosis for unreadable or malformed files.
  PARITY_ASSIGN_OR_RETURN(info, inspect_model(path));
  auto impl = std::make_unique<Impl>();
  impl->external_files = std::move(info.external_files);
  PARITY_TRY(parse_model(path, impl->model));
  impl->source = path;
  std::error_code ec;
  impl->source_size = std::filesystem::file_size(path, ec);
  onnx::GraphProto& g = *impl->model.mutable_graph();
  outline_borders(g, impl->outline, impl->elem_types);

  const NodeReads reads = collect_reads(g);
  PARITY_ASSIGN_OR_RETURN(order, topological_order(g, reads.reads, path));
  const NodeReads sorted = sort_nodes(g, order, reads);

  TypeSources types;
  PARITY_TRY(collect_types(impl->model, path, types, impl->elem_types));
  for (int k = 0; k < g.node_size(); ++k)
    outline_node(k, g.node(k), sorted.reads[k], sorted.inner_counts[k], types, impl->outline,
                 impl->elem_types);
  return ModelSurgery(std::move(impl));
}

Result<ModelSurgery> ModelSurgery::open(const std::filesystem::path& path) {
  // The module's border: nothing an untrusted file provokes may leave as an exception.
  return detail::at_model_border(path, [&] { return open_unguarded(path); });
}

namespace {

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

// A copy of `model` whose graph has no nodes, inputs, outputs, weights or value infos: those are
// swapped aside (O(1)) and back, so a one-node cut of ViT-B/16 does not copy 330 MB of weights.
onnx::ModelProto without_graph_contents(onnx::ModelProto& model) {
  onnx::GraphProto& g = *model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs, outputs, infos;
  google::protobuf::RepeatedPtrField<onnx::TensorProto> weights;
  google::protobuf::RepeatedPtrField<onnx::SparseTensorProto> sparse;
  auto swap_all = [&] {
    g.mutable_node()->Swap(&nodes);
    g.mutable_input()->Swap(&inputs);
    g.mutable_output()->Swap(&outputs);
    g.mutable_value_info()->Swap(&infos);
    g.mutable_initializer()->Swap(&weights);
    g.mutable_sparse_initializer()->Swap(&sparse);
  };
  swap_all();
  struct Restore {
    decltype(swap_all)& back;
    ~Restore() { back(); }
  } restore{swap_all};
  return model;
}

}  // namespace

Status ModelSurgery::write_exposed(const std::filesystem::path& dst,
                                   const std::vector<std::string>& tensors) const {
  onnx::ModelProto extra;  // the further outputs alone
  onnx::GraphProto& g = *extra.mutable_graph();
  std::unordered_set<std::string> present;
  for (const auto& o : impl_->model.graph().output()) present.insert(o.name());
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
  // Protobuf parses a message followed by another as their merge, and a repeated field appends:
  // the source file with the further outputs' bytes after it is the exposed model, written
  // without serializing every weight again (ViT-B/16: 330 MB, ~0.5 s a round). Were the file
  // changed since it was read, the model in memory is written whole instead.
  std::error_code ec;
  if (!impl_->source.empty() && std::filesystem::file_size(impl_->source, ec) == impl_->source_size && !ec) {
    PARITY_ASSIGN_OR_RETURN(f, OutputFile::open(dst));
    PARITY_TRY(f.copy_from(impl_->source));
    PARITY_TRY(detail::serialize_into(extra, f));
    PARITY_TRY(f.commit());
  } else {
    onnx::ModelProto whole = impl_->model;
    whole.mutable_graph()->MergeFrom(g);
    PARITY_TRY(detail::save_model(whole, dst));
  }
  // Weights in external files stay there: the copy finds them beside it under the same names.
  return provide_external_files(impl_->source, impl_->external_files, dst.parent_path());
}

Result<std::vector<std::string>> ModelSurgery::write_subgraph(
    const std::filesystem::path& dst, const std::vector<int>& node_indices,
    const std::vector<std::string>& outputs, const std::map<std::string, Shape>& input_shapes) const {
  const onnx::GraphProto& src = impl_->model.graph();
  std::vector<int> chosen = node_indices;
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  if (chosen.empty()) return bad("cannot extract an empty subgraph");

  onnx::ModelProto m = without_graph_contents(impl_->model);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name(src.name() + "_extract");

  std::unordered_set<std::string> produced;
  std::vector<std::string> needed;
  std::unordered_set<std::string> needed_set;
  for (int i : chosen) {
    if (i < 0 || i >= src.node_size()) return bad("node index " + std::to_string(i) + " is out of range");
    const GraphNode& gn = impl_->outline.nodes[static_cast<std::size_t>(i)];
    auto* node = g.add_node();
    *node = src.node(i);
    for (auto& a : *node->mutable_attribute())  // a Constant's value kept in an external file
      if (a.has_t()) PARITY_TRY(detail::inline_external_data(*a.mutable_t(), impl_->source));
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
      onnx::TensorProto* init = g.add_initializer();
      *init = *it->second;
      // The cut stands alone (a repro folder, a browser page): external weights come inline.
      PARITY_TRY(detail::inline_external_data(*init, impl_->source));
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
  PARITY_TRY(detail::save_model(m, dst));
  return graph_inputs;
}

}  // namespace parity::model
