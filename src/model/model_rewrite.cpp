#include "model/model_rewrite.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <new>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "model/onnx_model.h"
#include "model/proto_io.h"
#include "model/tensor_proto.h"

namespace parity::model {
namespace {

Error rewrite_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::write_output, std::move(message), std::move(hint));
}

// Index of top-level node `name` (of type `op` when given), or -1. An unnamed node answers to the
// name graph facts give it, "<op_type>_<index>".
int find_top_level(const onnx::GraphProto& g, const std::string& name, const char* op = nullptr) {
  for (int k = 0; k < g.node_size(); ++k) {
    const onnx::NodeProto& n = g.node(k);
    if (op && n.op_type() != op) continue;
    if (n.name() == name || (n.name().empty() && n.op_type() + "_" + std::to_string(k) == name)) return k;
  }
  return -1;
}

onnx::NodeProto* find_node(onnx::GraphProto& g, const std::string& name) {
  const int k = find_top_level(g, name);
  return k < 0 ? nullptr : g.mutable_node(k);
}

const onnx::TensorProto* find_initializer(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

Result<Tensor> initializer_value(const onnx::GraphProto& g, const std::string& name,
                                 const std::string& origin) {
  const onnx::TensorProto* t = find_initializer(g, name);
  if (!t)
    return rewrite_error("'" + name + "' is not an initializer", "only constant scales can be expanded");
  PARITY_ASSIGN_OR_RETURN(value, detail::tensor_from_proto(*t, origin));
  return std::move(value.tensor);
}

Status add_initializer(onnx::GraphProto& g, const NamedTensor& t) {
  onnx::TensorProto p;
  if (!p.ParseFromString(serialize_tensor_proto(t)))
    return make_error(ErrorKind::internal, Stage::write_output, "cannot encode initializer " + t.name);
  p.set_name(t.name);
  *g.add_initializer() = std::move(p);
  return ok_status();
}

// A fresh value name: `base` with a suffix no value of the graph has.
std::string unused_name(const onnx::GraphProto& g, const std::string& base) {
  std::unordered_set<std::string> used;
  for (const auto& t : g.initializer()) used.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) used.insert(o);
  for (const auto& i : g.input()) used.insert(i.name());
  std::string name = base;
  for (int k = 1; used.count(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

// Element i of `blocked` repeated per block: out[i] = blocked[i / block], n elements.
Result<Tensor> per_element(const Tensor& blocked, int64_t n, int64_t block) {
  const std::size_t width = dtype_size(blocked.dtype());
  std::vector<std::byte> bytes(static_cast<std::size_t>(n) * width);
  const auto src = blocked.bytes();
  for (int64_t i = 0; i < n; ++i) {
    const auto from = static_cast<std::size_t>(i / block);
    if ((from + 1) * width > src.size())
      return rewrite_error("the blocked scale has too few blocks for " + std::to_string(n) + " elements");
    std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(from * width), width,
                bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * width));
  }
  return Tensor::from_bytes(blocked.dtype(), {n}, std::move(bytes));
}

// DequantizeLinear `n`'s scale and zero point (inputs 1 and 2, where given) replaced by new
// initializers `expand` makes of their values, named after the old ones with `suffix`.
Status expand_quantization_params(
    onnx::GraphProto& g, onnx::NodeProto& n, const std::string& origin, const std::string& suffix,
    const std::function<Result<Tensor>(const std::string&, const Tensor&)>& expand) {
  for (int slot = 1; slot < std::min(n.input_size(), 3); ++slot) {
    if (n.input(slot).empty()) continue;
    PARITY_ASSIGN_OR_RETURN(value, initializer_value(g, n.input(slot), origin));
    PARITY_ASSIGN_OR_RETURN(expanded, expand(n.input(slot), value));
    const std::string fresh = unused_name(g, n.input(slot) + suffix);
    PARITY_TRY(add_initializer(g, {fresh, std::move(expanded)}));
    n.set_input(slot, fresh);
  }
  return ok_status();
}

}  // namespace

struct ModelRewriter::Impl {
  std::filesystem::path path;
  onnx::ModelProto model;
};

ModelRewriter::ModelRewriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModelRewriter::~ModelRewriter() = default;
ModelRewriter::ModelRewriter(ModelRewriter&&) noexcept = default;
ModelRewriter& ModelRewriter::operator=(ModelRewriter&&) noexcept = default;

Result<ModelRewriter> ModelRewriter::open(const std::filesystem::path& path) {
  PARITY_TRY(inspect_model(path));
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  try {
    PARITY_ASSIGN_OR_RETURN(bytes, detail::read_file(path, Stage::load_model, "model"));
    if (!detail::parse_message(bytes, impl->model))
      return make_error(ErrorKind::bad_input, Stage::load_model, path.string() + ": not an ONNX model");
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::oom, Stage::load_model, path.string() + ": out of memory parsing the model");
  }
  return ModelRewriter(std::move(impl));
}

Status ModelRewriter::expand_blocked_dequantize(const std::string& name) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  onnx::NodeProto* n = find_node(g, name);
  if (!n || n->op_type() != "DequantizeLinear")
    return rewrite_error("no DequantizeLinear node '" + name + "'");
  int64_t block = 0;
  int block_attr = -1;
  for (int k = 0; k < n->attribute_size(); ++k)
    if (n->attribute(k).name() == "block_size") {
      block = n->attribute(k).i();
      block_attr = k;
    }
  if (block <= 0) return rewrite_error("node '" + name + "' has no block_size");
  const std::string origin = impl_->path.string();
  // The element count comes from the quantized input: an initializer, or a graph input's shape.
  int64_t count = -1;
  if (const onnx::TensorProto* x = find_initializer(g, n->input(0)); x && x->dims_size() == 1)
    count = x->dims(0);
  for (const auto& in : g.input())
    if (in.name() == n->input(0) && in.type().tensor_type().shape().dim_size() == 1 &&
        in.type().tensor_type().shape().dim(0).has_dim_value())
      count = in.type().tensor_type().shape().dim(0).dim_value();
  if (count <= 0)
    return rewrite_error("the length of '" + n->input(0) + "' is not known",
                         "give the input a fixed 1-D shape");
  PARITY_TRY(expand_quantization_params(
      g, *n, origin, "_per_element",
      [&](const std::string&, const Tensor& blocked) { return per_element(blocked, count, block); }));
  n->mutable_attribute()->DeleteSubrange(block_attr, 1);
  return ok_status();
}

Status ModelRewriter::expand_per_tensor_dequantize(const std::string& name, int64_t rows) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  onnx::NodeProto* n = find_node(g, name);
  if (!n || n->op_type() != "DequantizeLinear")
    return rewrite_error("no DequantizeLinear node '" + name + "'");
  if (rows <= 0)
    return rewrite_error("the rows of '" + n->input(0) + "' are not known", "give it a fixed shape");
  PARITY_TRY(expand_quantization_params(g, *n, impl_->path.string(), "_per_row",
                                        [&](const std::string& input, const Tensor& one) -> Result<Tensor> {
                                          if (one.numel() != 1)
                                            return rewrite_error("'" + input + "' holds more than one value");
                                          return per_element(one, rows, rows);
                                        }));
  onnx::AttributeProto* axis = nullptr;
  for (auto& a : *n->mutable_attribute())
    if (a.name() == "axis") axis = &a;
  if (!axis) {
    axis = n->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
  }
  axis->set_i(0);
  return ok_status();
}

Status ModelRewriter::rewrite_negative_step_slice(const std::string& name, const Shape& data_shape) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  onnx::NodeProto* n = find_node(g, name);
  if (!n || n->op_type() != "Slice" || n->input_size() < 5)
    return rewrite_error("no Slice node '" + name + "' with steps (opset 10+)");
  const std::string origin = impl_->path.string();
  auto ints_of = [&](int slot) -> Result<std::vector<int64_t>> {
    PARITY_ASSIGN_OR_RETURN(t, initializer_value(g, n->input(slot), origin));
    std::vector<int64_t> v;
    for (double d : t.to_doubles()) v.push_back(static_cast<int64_t>(d));
    return v;
  };
  PARITY_ASSIGN_OR_RETURN(starts, ints_of(1));
  PARITY_ASSIGN_OR_RETURN(ends, ints_of(2));
  PARITY_ASSIGN_OR_RETURN(steps, ints_of(4));
  std::vector<int64_t> axes;
  if (!n->input(3).empty()) {
    PARITY_ASSIGN_OR_RETURN(given, ints_of(3));
    axes = given;
  } else {
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  const auto rank = static_cast<int64_t>(data_shape.size());
  std::vector<int64_t> head_axes, head_ends;
  for (std::size_t k = 0; k < steps.size() && k < starts.size() && k < ends.size() && k < axes.size(); ++k) {
    if (steps[k] >= 0) continue;
    const int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    const int64_t dim = axis >= 0 && axis < rank ? data_shape[static_cast<std::size_t>(axis)] : -1;
    if (dim <= 0) return rewrite_error("the length of axis " + std::to_string(axes[k]) + " is not known");
    int64_t start = starts[k] < 0 ? starts[k] + dim : starts[k];
    if (start >= dim - 1 || starts[k] == -1) continue;  // already right
    start = std::max<int64_t>(start, 0);
    // The end, made absolute against the original length (the shorter head would read it anew).
    // "Through the beginning" becomes -(head length + 1): before the head's first element.
    if (ends[k] < 0) ends[k] = ends[k] < -dim ? -(start + 2) : ends[k] + dim;
    head_axes.push_back(axis);
    head_ends.push_back(start + 1);
    starts[k] = -1;
  }
  if (head_axes.empty()) return rewrite_error("Slice '" + name + "' has no negative-step axis to rewrite");
  auto int64s = [](const std::vector<int64_t>& v) {
    std::vector<std::byte> bytes(v.size() * sizeof(int64_t));
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return *Tensor::from_bytes(DType::int64, {static_cast<int64_t>(v.size())}, std::move(bytes));
  };
  const std::string head_starts = unused_name(g, name + "/head_starts"),
                    head_end = unused_name(g, name + "/head_ends"),
                    head_axis = unused_name(g, name + "/head_axes"),
                    new_starts = unused_name(g, name + "/starts"), new_ends = unused_name(g, name + "/ends"),
                    head = unused_name(g, name + "/head");
  PARITY_TRY(add_initializer(g, {head_starts, int64s(std::vector<int64_t>(head_axes.size(), 0))}));
  PARITY_TRY(add_initializer(g, {head_end, int64s(head_ends)}));
  PARITY_TRY(add_initializer(g, {head_axis, int64s(head_axes)}));
  PARITY_TRY(add_initializer(g, {new_starts, int64s(starts)}));
  PARITY_TRY(add_initializer(g, {new_ends, int64s(ends)}));
  onnx::NodeProto slice_head;
  slice_head.set_op_type("Slice");
  slice_head.set_name(name + "/head");
  for (const auto& in : {n->input(0), head_starts, head_end, head_axis}) slice_head.add_input(in);
  slice_head.add_output(head);
  n->set_input(0, head);
  n->set_input(1, new_starts);
  n->set_input(2, new_ends);
  // The head slice goes right before the node it feeds.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const auto& node : g.node()) {
    if (&node == n) *nodes.Add() = slice_head;
    *nodes.Add() = node;
  }
  g.mutable_node()->Swap(&nodes);
  return ok_status();
}

Status ModelRewriter::add_conv_kernel_shape(const std::string& name) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  onnx::NodeProto* n = find_node(g, name);
  if (!n || n->op_type() != "Conv") return rewrite_error("no Conv node '" + name + "'");
  const onnx::TensorProto* w = n->input_size() > 1 ? find_initializer(g, n->input(1)) : nullptr;
  if (!w || w->dims_size() < 3)
    return rewrite_error("the weight of '" + name + "' is not an initializer of rank >= 3",
                         "its kernel shape cannot be read from the file");
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("kernel_shape");
  a->set_type(onnx::AttributeProto::INTS);
  for (int k = 2; k < w->dims_size(); ++k) a->add_ints(w->dims(k));
  return ok_status();
}

Result<std::vector<std::string>> ModelRewriter::replace_with_constants(
    const std::vector<NamedTensor>& values) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  std::set<std::string> replaced;
  for (const auto& v : values) {
    PARITY_TRY(add_initializer(g, v));
    replaced.insert(v.name);
  }
  // The producers of replaced values no longer make them: drop those outputs' producers when
  // nothing else of theirs is read, repeatedly, so the whole island goes.
  std::vector<std::string> removed;
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_set<std::string> read;
    for (const auto& n : g.node())
      for (const auto& in : n.input()) read.insert(in);
    for (const auto& o : g.output()) read.insert(o.name());
    for (int k = g.node_size() - 1; k >= 0; --k) {
      const onnx::NodeProto& n = g.node(k);
      const bool needed = std::any_of(n.output().begin(), n.output().end(), [&](const std::string& o) {
        return !o.empty() && read.count(o) && !replaced.count(o);
      });
      if (needed) continue;
      removed.push_back(n.name().empty() ? n.op_type() + "_" + std::to_string(k) : n.name());
      g.mutable_node()->DeleteSubrange(k, 1);
      changed = true;
    }
  }
  std::unordered_set<std::string> read;
  for (const auto& n : g.node())
    for (const auto& in : n.input()) read.insert(in);
  for (const auto& o : g.output()) read.insert(o.name());
  for (int k = g.initializer_size() - 1; k >= 0; --k)
    if (!read.count(g.initializer(k).name())) g.mutable_initializer()->DeleteSubrange(k, 1);
  return removed;
}

Status ModelRewriter::sort_topologically() {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  std::unordered_set<std::string> ready;
  for (const auto& i : g.input()) ready.insert(i.name());
  for (const auto& t : g.initializer()) ready.insert(t.name());
  ready.insert("");
  std::vector<int> order;
  std::vector<bool> placed(static_cast<std::size_t>(g.node_size()), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (int k = 0; k < g.node_size(); ++k) {
      if (placed[static_cast<std::size_t>(k)]) continue;
      const auto& n = g.node(k);
      if (!std::all_of(n.input().begin(), n.input().end(),
                       [&](const std::string& in) { return ready.count(in) > 0; }))
        continue;
      placed[static_cast<std::size_t>(k)] = true;
      order.push_back(k);
      for (const auto& o : n.output()) ready.insert(o);
      progress = true;
    }
  }
  if (order.size() != static_cast<std::size_t>(g.node_size()))
    return rewrite_error("the graph has a cycle or reads values nothing makes (subgraph outer scope?)",
                         "it cannot be sorted; check it with 'parity inspect'");
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int k : order) *sorted.Add() = g.node(k);
  g.mutable_node()->Swap(&sorted);
  return ok_status();
}

namespace {

// Renames every use and definition of the names in `renamed` in `g` and its nested subgraphs.
void rename_values(onnx::GraphProto& g, const std::unordered_map<std::string, std::string>& renamed) {
  auto fix = [&](std::string* name) {
    if (const auto it = renamed.find(*name); it != renamed.end()) *name = it->second;
  };
  for (auto& n : *g.mutable_node()) {
    for (auto& in : *n.mutable_input()) fix(&in);
    for (auto& out : *n.mutable_output()) fix(&out);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rename_values(*a.mutable_g(), renamed);
      for (auto& sub : *a.mutable_graphs()) rename_values(sub, renamed);
    }
  }
  for (auto& t : *g.mutable_initializer()) fix(t.mutable_name());
  for (auto& v : *g.mutable_value_info()) fix(v.mutable_name());
  for (auto& v : *g.mutable_output()) fix(v.mutable_name());
}

}  // namespace

Status ModelRewriter::inline_if(const std::string& name, bool then_taken) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  const int at = find_top_level(g, name, "If");
  if (at < 0) return rewrite_error("no top-level If node '" + name + "'");
  const onnx::NodeProto node = g.node(at);
  const char* wanted_branch = then_taken ? "then_branch" : "else_branch";
  const onnx::GraphProto* found = nullptr;
  for (const auto& a : node.attribute())
    if (a.name() == wanted_branch && a.has_g()) found = &a.g();
  if (!found) return rewrite_error("If '" + name + "' has no " + wanted_branch);
  onnx::GraphProto branch = *found;

  // Names the outer graph already uses; a branch value with one of them is renamed.
  std::unordered_set<std::string> used;
  for (const auto& i : g.input()) used.insert(i.name());
  for (const auto& t : g.initializer()) used.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) used.insert(o);
  std::unordered_map<std::string, std::string> renamed;
  auto defines = [&](const std::string& v) {
    if (v.empty() || !used.count(v)) return;
    std::string fresh = name + "/" + v;
    for (int k = 1; used.count(fresh); ++k) fresh = name + "/" + v + "_" + std::to_string(k);
    renamed[v] = fresh;
    used.insert(fresh);
  };
  for (const auto& n : branch.node())
    for (const auto& o : n.output()) defines(o);
  for (const auto& t : branch.initializer()) defines(t.name());
  rename_values(branch, renamed);

  // The branch's outputs become the If's outputs.
  std::unordered_map<std::string, std::string> to_if_output;
  std::unordered_set<std::string> made_inside;
  for (const auto& n : branch.node())
    for (const auto& o : n.output()) made_inside.insert(o);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> inlined;
  for (int k = 0; k < branch.output_size() && k < node.output_size(); ++k) {
    const std::string& inner = branch.output(k).name();
    if (made_inside.count(inner) && !to_if_output.count(inner)) {
      to_if_output[inner] = node.output(k);
    } else {  // an outer value (or one output twice) passes through: an Identity keeps the name
      onnx::NodeProto* id = inlined.Add();
      id->set_op_type("Identity");
      id->set_name(name + "/pass_" + std::to_string(k));
      const auto first = to_if_output.find(inner);  // a value output twice now has the first name
      id->add_input(first == to_if_output.end() ? inner : first->second);
      id->add_output(node.output(k));
    }
  }
  rename_values(branch, to_if_output);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int k = 0; k < at; ++k) *nodes.Add() = g.node(k);
  for (const auto& n : branch.node()) *nodes.Add() = n;
  for (const auto& n : inlined) *nodes.Add() = n;
  for (int k = at + 1; k < g.node_size(); ++k) *nodes.Add() = g.node(k);
  g.mutable_node()->Swap(&nodes);
  for (const auto& t : branch.initializer()) *g.add_initializer() = t;
  for (const auto& v : branch.value_info()) *g.add_value_info() = v;
  return ok_status();
}

namespace {

int64_t default_opset(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  return 0;
}

// Appends a Constant node making `name` from `t`.
void add_constant(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, const std::string& name,
                  const NamedTensor& t) {
  onnx::NodeProto* c = nodes.Add();
  c->set_op_type("Constant");
  c->set_name(name);
  c->add_output(name);
  onnx::AttributeProto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->ParseFromString(serialize_tensor_proto(t));
  a->mutable_t()->set_name(name);
}

NamedTensor int64_scalar(int64_t v) {
  std::vector<std::byte> bytes(sizeof(int64_t));
  std::memcpy(bytes.data(), &v, sizeof v);
  return {"", *Tensor::from_bytes(DType::int64, {}, std::move(bytes))};
}

// One iteration of a body: its nodes renamed with `prefix`, inputs bound by `bound` (body input
// name -> outer value), appended to `nodes`; its initializers moved to `g`. Returns the body's
// output names as the outer values they became.
std::vector<std::string> stamp_body(const onnx::GraphProto& body, const std::string& prefix,
                                    const std::unordered_map<std::string, std::string>& bound,
                                    onnx::GraphProto& g,
                                    google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
  std::unordered_map<std::string, std::string> renamed = bound;
  for (const auto& n : body.node())
    for (const auto& o : n.output())
      if (!o.empty()) renamed[o] = prefix + o;
  for (const auto& t : body.initializer()) renamed[t.name()] = prefix + t.name();
  onnx::GraphProto copy = body;
  rename_values(copy, renamed);
  for (auto& n : *copy.mutable_node()) {
    n.set_name(prefix + (n.name().empty() ? n.op_type() : n.name()));
    *nodes.Add() = n;
  }
  for (const auto& t : copy.initializer()) *g.add_initializer() = t;
  std::vector<std::string> outputs;
  for (const auto& o : body.output()) {
    const auto it = renamed.find(o.name());
    outputs.push_back(it == renamed.end() ? o.name() : it->second);
  }
  return outputs;
}

// Stacks per-iteration values along a new axis 0 into `out`.
Status stack(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, onnx::GraphProto& g, int64_t opset,
             const std::string& prefix, const std::vector<std::string>& parts, const std::string& out) {
  std::string axes;
  if (opset >= 13) {
    axes = unused_name(g, prefix + "axes0");
    std::vector<std::byte> bytes(sizeof(int64_t), std::byte{0});
    PARITY_TRY(add_initializer(g, {axes, *Tensor::from_bytes(DType::int64, {1}, std::move(bytes))}));
  }
  onnx::NodeProto* concat = nullptr;
  std::vector<std::string> unsqueezed;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    onnx::NodeProto* u = nodes.Add();
    u->set_op_type("Unsqueeze");
    u->set_name(prefix + "stack_" + std::to_string(i));
    u->add_input(parts[i]);
    if (opset >= 13) {
      u->add_input(axes);
    } else {
      onnx::AttributeProto* a = u->add_attribute();
      a->set_name("axes");
      a->set_type(onnx::AttributeProto::INTS);
      a->add_ints(0);
    }
    unsqueezed.push_back(prefix + "stacked_" + std::to_string(i));
    u->add_output(unsqueezed.back());
  }
  concat = nodes.Add();
  concat->set_op_type("Concat");
  concat->set_name(prefix + "stack");
  for (const auto& u : unsqueezed) concat->add_input(u);
  concat->add_output(out);
  onnx::AttributeProto* a = concat->add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(0);
  return ok_status();
}

void identity(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, const std::string& name,
              const std::string& from, const std::string& to) {
  onnx::NodeProto* id = nodes.Add();
  id->set_op_type("Identity");
  id->set_name(name);
  id->add_input(from);
  id->add_output(to);
}

// The unrolled copies' results under the node's own output names (final states, then stacked scan
// outputs), then the nodes after it.
Status close_unrolled(onnx::GraphProto& g, google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                      const onnx::NodeProto& node, const std::string& name, int at, int64_t opset,
                      const std::vector<std::string>& finals,
                      const std::vector<std::vector<std::string>>& parts) {
  const int states = static_cast<int>(finals.size());
  for (int k = 0; k < states && k < node.output_size(); ++k)
    identity(nodes, name + "/final_" + std::to_string(k), finals[k], node.output(k));
  for (int j = 0; j < static_cast<int>(parts.size()) && states + j < node.output_size(); ++j)
    PARITY_TRY(
        stack(nodes, g, opset, name + "/scan" + std::to_string(j) + "/", parts[j], node.output(states + j)));
  for (int k = at + 1; k < g.node_size(); ++k) *nodes.Add() = g.node(k);
  g.mutable_node()->Swap(&nodes);
  return ok_status();
}

}  // namespace

Status ModelRewriter::unroll_loop(const std::string& name, int64_t trips) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  const int at = find_top_level(g, name, "Loop");
  if (at < 0) return rewrite_error("no top-level Loop node '" + name + "'");
  if (trips < 1)
    return rewrite_error("Loop '" + name + "': nothing to unroll for " + std::to_string(trips) + " trips");
  const onnx::NodeProto node = g.node(at);
  const onnx::GraphProto* body = nullptr;
  for (const auto& a : node.attribute())
    if (a.name() == "body" && a.has_g()) body = &a.g();
  if (!body || body->input_size() < 2 || body->output_size() < 1)
    return rewrite_error("Loop '" + name + "' has no usable body");
  const int carried = node.input_size() - 2;
  // Untrusted arity: every index below stays inside the node's and the body's lists.
  if (carried < 0 || body->output_size() < 1 + carried)
    return rewrite_error("Loop '" + name + "': its body's outputs do not match the node's inputs");
  // A loop whose body may turn its condition false could stop early: its trip count is not fixed.
  const std::string& cond_in = body->input(1).name();
  const std::string& cond_out = body->output(0).name();
  bool fixed = cond_out == cond_in;
  for (const auto& n : body->node())
    if (!fixed && n.op_type() == "Constant" && n.output_size() == 1 && n.output(0) == cond_out)
      for (const auto& a : n.attribute())
        if (a.name() == "value" && a.has_t() && a.t().int32_data_size() + a.t().raw_data().size() > 0)
          fixed = a.t().raw_data().empty() ? a.t().int32_data(0) != 0 : a.t().raw_data()[0] != 0;
  if (!fixed)
    return rewrite_error(
        "Loop '" + name + "' may stop before its trip count (its body computes the condition)",
        "bisect compares it as one node");
  const int64_t opset = default_opset(impl_->model);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int k = 0; k < at; ++k) *nodes.Add() = g.node(k);
  std::vector<std::string> current;
  for (int k = 0; k < carried; ++k) current.push_back(node.input(2 + k));
  std::string cond = node.input_size() > 1 ? node.input(1) : "";
  if (cond.empty()) {
    cond = unused_name(g, name + "/cond");
    std::vector<std::byte> one{std::byte{1}};
    add_constant(nodes, cond, {cond, *Tensor::from_bytes(DType::boolean, {}, std::move(one))});
  }
  const int scans = body->output_size() - 1 - carried;
  std::vector<std::vector<std::string>> parts(static_cast<std::size_t>(std::max(scans, 0)));
  for (int64_t i = 0; i < trips; ++i) {
    const std::string prefix = name + "/iter" + std::to_string(i) + "/";
    std::unordered_map<std::string, std::string> bound;
    const std::string iteration = prefix + "iteration";
    add_constant(nodes, iteration, int64_scalar(i));
    bound[body->input(0).name()] = iteration;
    bound[cond_in] = cond;
    for (int k = 0; k < carried && 2 + k < body->input_size(); ++k)
      bound[body->input(2 + k).name()] = current[k];
    const auto outs = stamp_body(*body, prefix, bound, g, nodes);
    for (int k = 0; k < carried; ++k) current[k] = outs[1 + k];
    for (int j = 0; j < scans; ++j) parts[j].push_back(outs[1 + carried + j]);
  }
  return close_unrolled(g, nodes, node, name, at, opset, current, parts);
}

Status ModelRewriter::unroll_scan(const std::string& name, int64_t length) {
  onnx::GraphProto& g = *impl_->model.mutable_graph();
  const int at = find_top_level(g, name, "Scan");
  if (at < 0) return rewrite_error("no top-level Scan node '" + name + "'");
  const onnx::NodeProto node = g.node(at);
  const onnx::GraphProto* body = nullptr;
  int64_t scan_inputs = -1;
  for (const auto& a : node.attribute()) {
    if (a.name() == "body" && a.has_g()) body = &a.g();
    if (a.name() == "num_scan_inputs") scan_inputs = a.i();
    const bool layout = a.name() == "scan_input_axes" || a.name() == "scan_input_directions" ||
                        a.name() == "scan_output_axes" || a.name() == "scan_output_directions";
    if (layout && std::any_of(a.ints().begin(), a.ints().end(), [](int64_t v) { return v != 0; }))
      return rewrite_error("Scan '" + name + "' scans along another axis or backwards",
                           "only axis 0, forward, is unrolled");
  }
  if (!body || scan_inputs < 1 || length < 1)
    return rewrite_error("Scan '" + name + "' has no usable body or length");
  const int states = node.input_size() - static_cast<int>(scan_inputs);
  // Untrusted arity (a body taking fewer inputs than the node passes read past its end).
  if (states < 0 || body->input_size() != node.input_size() || body->output_size() < states)
    return rewrite_error("Scan '" + name + "': its body's inputs or outputs do not match the node");
  const int64_t opset = default_opset(impl_->model);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int k = 0; k < at; ++k) *nodes.Add() = g.node(k);
  std::vector<std::string> current;
  for (int k = 0; k < states; ++k) current.push_back(node.input(k));
  const int scans_out = body->output_size() - states;
  std::vector<std::vector<std::string>> parts(static_cast<std::size_t>(std::max(scans_out, 0)));
  for (int64_t i = 0; i < length; ++i) {
    const std::string prefix = name + "/iter" + std::to_string(i) + "/";
    std::unordered_map<std::string, std::string> bound;
    for (int k = 0; k < states; ++k) bound[body->input(k).name()] = current[k];
    const std::string index = prefix + "index";
    add_constant(nodes, index, int64_scalar(i));
    for (int m = 0; m < scan_inputs; ++m) {
      onnx::NodeProto* slice = nodes.Add();
      slice->set_op_type("Gather");
      slice->set_name(prefix + "slice_" + std::to_string(m));
      slice->add_input(node.input(states + m));
      slice->add_input(index);
      slice->add_output(prefix + "slice_" + std::to_string(m));
      bound[body->input(states + m).name()] = slice->output(0);
    }
    const auto outs = stamp_body(*body, prefix, bound, g, nodes);
    for (int k = 0; k < states; ++k) current[k] = outs[k];
    for (int j = 0; j < scans_out; ++j) parts[j].push_back(outs[states + j]);
  }
  return close_unrolled(g, nodes, node, name, at, opset, current, parts);
}

Status ModelRewriter::save(const std::filesystem::path& path) const {
  return detail::save_model(impl_->model, path);
}

}  // namespace parity::model
