#include "model/model_rewrite.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
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

onnx::NodeProto* find_node(onnx::GraphProto& g, const std::string& name) {
  for (int k = 0; k < g.node_size(); ++k) {
    onnx::NodeProto* n = g.mutable_node(k);
    if (n->name() == name || (n->name().empty() && n->op_type() + "_" + std::to_string(k) == name)) return n;
  }
  return nullptr;
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
  for (int slot = 1; slot < std::min(n->input_size(), 3); ++slot) {
    if (n->input(slot).empty()) continue;
    PARITY_ASSIGN_OR_RETURN(blocked, initializer_value(g, n->input(slot), origin));
    PARITY_ASSIGN_OR_RETURN(expanded, per_element(blocked, count, block));
    const std::string fresh = unused_name(g, n->input(slot) + "_per_element");
    PARITY_TRY(add_initializer(g, {fresh, std::move(expanded)}));
    n->set_input(slot, fresh);
  }
  n->mutable_attribute()->DeleteSubrange(block_attr, 1);
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

Status ModelRewriter::save(const std::filesystem::path& path) const {
  std::string bytes;
  if (!impl_->model.SerializeToString(&bytes))
    return make_error(ErrorKind::internal, Stage::write_output,
                      "cannot serialize the model for " + path.string());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f)
    return make_error(ErrorKind::io, Stage::write_output, "cannot write " + path.string(),
                      "check the disk space");
  return ok_status();
}

}  // namespace parity::model
