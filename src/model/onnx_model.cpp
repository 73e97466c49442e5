#include "model/onnx_model.h"

#include <fcntl.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <set>
#include <unordered_set>

#include "model/guarded_inference.h"
#include "model/proto_io.h"

namespace parity::model {
namespace {

constexpr std::string_view kWhat = "an ONNX model";

Error bad_model(const std::string& origin, std::string what_is_wrong, std::string hint) {
  return make_error(ErrorKind::bad_input, Stage::load_model, origin + ": " + std::move(what_is_wrong),
                    std::move(hint));
}

// ONNX names the default operator set both "" and "ai.onnx"; Parity keys it as "".
bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string_view type_case_name(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: return "a tensor";
    case onnx::TypeProto::kSequenceType: return "a sequence";
    case onnx::TypeProto::kMapType: return "a map";
    case onnx::TypeProto::kOptionalType: return "an optional";
    case onnx::TypeProto::kSparseTensorType: return "a sparse tensor";
    case onnx::TypeProto::kOpaqueType: return "an opaque value";
    default: return "untyped";
  }
}

// Inputs must be plain tensors of a known element type (Parity has to build them). Outputs are
// described as far as they are declared: the backend reports their real type at run time, so an
// untyped output or one of a newer element type is left DType::undefined rather than refused.
Result<ValueInfo> describe_value(const onnx::ValueInfoProto& v, bool is_input, const std::string& origin) {
  ValueInfo info;
  info.name = v.name();
  const bool is_tensor = v.has_type() && v.type().has_tensor_type();
  if (!is_tensor) {
    if (!is_input) return info;
    const std::string kind = v.has_type() ? "is " + std::string(type_case_name(v.type())) : "has no type";
    return bad_model(origin,
                     "graph input '" + detail::printable(v.name()) + "' " + kind + ", not a typed tensor",
                     "Parity feeds tensor inputs only; export the model with tensor inputs");
  }
  const onnx::TypeProto::Tensor& tensor = v.type().tensor_type();
  const std::optional<DType> dtype = dtype_from_onnx(tensor.elem_type());
  if (dtype) {
    info.dtype = *dtype;
  } else if (is_input) {
    return bad_model(origin,
                     "graph input '" + detail::printable(v.name()) + "' has element type " +
                         std::to_string(tensor.elem_type()) + ", which Parity does not know",
                     "the model may need a newer Parity; otherwise it is damaged");
  }
  info.has_shape = tensor.has_shape();
  for (const onnx::TensorShapeProto::Dimension& d : tensor.shape().dim()) {
    Dim dim;
    if (d.has_dim_value()) {
      dim.value = d.dim_value() >= 0 ? d.dim_value() : -1;  // a negative size means nothing: unknown
    } else if (d.has_dim_param()) {
      dim.symbol = d.dim_param();
    }
    info.dims.push_back(std::move(dim));
  }
  return info;
}

void note_type(ModelInfo& info, int32_t onnx_type) {
  if (auto t = dtype_from_onnx(onnx_type)) info.element_types.insert(*t);
}

void note_element_types(const onnx::GraphProto& g, ModelInfo& info) {
  for (const auto* values : {&g.input(), &g.output(), &g.value_info()})
    for (const onnx::ValueInfoProto& v : *values)
      if (v.has_type() && v.type().has_tensor_type()) note_type(info, v.type().tensor_type().elem_type());
  for (const onnx::TensorProto& t : g.initializer()) note_type(info, t.data_type());
  for (const onnx::SparseTensorProto& t : g.sparse_initializer()) note_type(info, t.values().data_type());
  for (const onnx::NodeProto& n : g.node()) {
    if (!is_default_domain(n.domain()) || (n.op_type() != "Cast" && n.op_type() != "Constant")) continue;
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.name() == "to") note_type(info, static_cast<int32_t>(a.i()));
      if (a.name() == "value" && a.has_t()) note_type(info, a.t().data_type());
    }
  }
}

// The bytes of a tensor's elements from its dims and type: the same figure whether the data sits
// in raw_data, a typed field or an external file.
std::uintmax_t element_bytes(const onnx::TensorProto& t) {
  // A negative dim counts as empty, a product past 64 bits as the largest figure (fuzzed files).
  std::uintmax_t n = 1;
  for (int64_t d : t.dims())
    if (d <= 0)
      return 0;
    else if (__builtin_mul_overflow(n, static_cast<std::uintmax_t>(d), &n))
      return UINTMAX_MAX;
  const std::optional<DType> dtype = dtype_from_onnx(t.data_type());
  if (!dtype) return t.raw_data().size();
  if (*dtype == DType::int4 || *dtype == DType::uint4) return n / 2 + n % 2;  // two per byte on disk
  std::uintmax_t bytes = 0;
  return __builtin_mul_overflow(n, dtype_size(*dtype), &bytes) ? UINTMAX_MAX : bytes;
}

void note_weight(ModelInfo& info, const onnx::TensorProto& t) {
  const std::uintmax_t bytes = element_bytes(t);
  info.largest_weight_bytes = std::max(info.largest_weight_bytes, bytes);
  if (const std::optional<DType> dtype = dtype_from_onnx(t.data_type())) info.weight_bytes[*dtype] += bytes;
}

void note_external_file(ModelInfo& info, const onnx::TensorProto& t) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
  for (const auto& e : t.external_data())
    if (e.key() == "location" && std::find(info.external_files.begin(), info.external_files.end(),
                                           e.value()) == info.external_files.end())
      info.external_files.push_back(e.value());
}

void describe_initializers(const onnx::GraphProto& g, ModelInfo& info) {
  info.initializer_count = static_cast<std::size_t>(g.initializer_size() + g.sparse_initializer_size());
  for (const onnx::TensorProto& t : g.initializer()) {
    info.initializer_bytes += element_bytes(t);
    note_weight(info, t);
    if (t.data_location() == onnx::TensorProto::EXTERNAL) ++info.external_initializers;
    note_external_file(info, t);
  }
  for (const onnx::SparseTensorProto& t : g.sparse_initializer()) {
    info.initializer_bytes += element_bytes(t.values());
    note_weight(info, t.values());
  }
  for (const onnx::NodeProto& n : g.node())
    if (is_default_domain(n.domain()) && n.op_type() == "Constant")
      for (const onnx::AttributeProto& a : n.attribute())
        if (a.name() == "value" && a.has_t()) {
          note_weight(info, a.t());
          note_external_file(info, a.t());
        }
}

std::size_t subgraph_node_count(const onnx::NodeProto& n) {
  std::size_t count = 0;
  for (const onnx::AttributeProto& a : n.attribute()) {
    auto add = [&count](const onnx::GraphProto& sub) {
      count += static_cast<std::size_t>(sub.node_size());
      for (const onnx::NodeProto& inner : sub.node()) count += subgraph_node_count(inner);
    };
    if (a.has_g()) add(a.g());
    for (const onnx::GraphProto& sub : a.graphs()) add(sub);
  }
  return count;
}

void describe_nodes(const onnx::GraphProto& g, ModelInfo& info) {
  info.node_count = static_cast<std::size_t>(g.node_size());
  for (const onnx::NodeProto& n : g.node()) {
    // Custom-domain ops are keyed "domain:Op" so that com.microsoft:Gelu does not count as ONNX Gelu.
    const bool standard = is_default_domain(n.domain());
    ++info.op_counts[standard ? n.op_type() : n.domain() + ":" + n.op_type()];
    if (standard && (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan")) {
      info.has_control_flow = true;
      info.control_flow.push_back({n.name(), n.op_type(), subgraph_node_count(n)});
    }
  }
}

// The value of a one-element int32/int64 tensor, or nullopt. The size is read off the dims first,
// so no large weight is decoded.
std::optional<int64_t> single_integer(const onnx::TensorProto& t) {
  const int64_t n = shape_numel(Shape(t.dims().begin(), t.dims().end()));
  const bool int64 = t.data_type() == onnx::TensorProto::INT64,
             int32 = t.data_type() == onnx::TensorProto::INT32;
  if (n != 1 || !(int64 || int32)) return std::nullopt;
  const Result<NamedTensor> v = detail::tensor_from_proto(t, t.name());
  if (!v.ok() || v->tensor.numel() != 1) return std::nullopt;
  return int64 ? v->tensor.view<int64_t>()[0] : int64_t{v->tensor.view<int32_t>()[0]};
}

// Fills info.compared_with from the Equal nodes of `g` and its subgraphs; `constants` are the
// one-element integer constants visible in the enclosing scopes.
void find_compared_inputs(const onnx::GraphProto& g, std::map<std::string, int64_t> constants,
                          const std::set<std::string>& integer_inputs, ModelInfo& info) {
  for (const onnx::TensorProto& t : g.initializer())
    if (const auto v = single_integer(t)) constants[t.name()] = *v;
  for (const onnx::NodeProto& n : g.node())
    if (is_default_domain(n.domain()) && n.op_type() == "Constant" && n.output_size() == 1)
      for (const onnx::AttributeProto& a : n.attribute())
        if (a.name() == "value" && a.has_t())
          if (const auto v = single_integer(a.t())) constants[n.output(0)] = *v;
  for (const onnx::NodeProto& n : g.node()) {
    if (is_default_domain(n.domain()) && n.op_type() == "Equal" && n.input_size() == 2)
      for (int k = 0; k < 2; ++k)
        if (integer_inputs.count(n.input(k)))
          if (auto c = constants.find(n.input(1 - k)); c != constants.end())
            info.compared_with.emplace(n.input(k), c->second);
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) find_compared_inputs(a.g(), constants, integer_inputs, info);
      for (const onnx::GraphProto& sub : a.graphs())
        find_compared_inputs(sub, constants, integer_inputs, info);
    }
  }
}

Result<ModelInfo> describe_model(const onnx::ModelProto& m, const std::string& origin,
                                 std::uintmax_t file_bytes) {
  if (!m.has_graph())
    return bad_model(origin, "not an ONNX model: it has no graph",
                     "check the path points at a .onnx model file");
  const onnx::GraphProto& g = m.graph();
  if (g.output_size() == 0)
    return bad_model(origin, "the graph declares no outputs",
                     "the export is incomplete: export the model again");

  ModelInfo info;
  info.path = origin;
  info.file_bytes = file_bytes;
  info.ir_version = m.ir_version();
  for (const onnx::OperatorSetIdProto& op : m.opset_import())
    info.opsets[is_default_domain(op.domain()) ? "" : op.domain()] = op.version();
  info.producer = m.producer_name();
  if (!m.producer_version().empty()) info.producer += " " + m.producer_version();

  // Before IR 4 every initializer was also listed as an input; those are weights, not inputs.
  std::unordered_set<std::string> initializers;
  for (const onnx::TensorProto& t : g.initializer()) initializers.insert(t.name());
  for (const onnx::SparseTensorProto& t : g.sparse_initializer()) initializers.insert(t.values().name());
  for (const onnx::ValueInfoProto& v : g.input()) {
    if (initializers.count(v.name())) continue;
    PARITY_ASSIGN_OR_RETURN(input, describe_value(v, true, origin));
    info.inputs.push_back(std::move(input));
  }
  for (const onnx::ValueInfoProto& v : g.output()) {
    PARITY_ASSIGN_OR_RETURN(output, describe_value(v, false, origin));
    info.outputs.push_back(std::move(output));
  }

  // Attributes ONNX's shape inference divides by unchecked (it dies with SIGFPE, in any tool that
  // loads the file): refused here, named, before anything analyses the graph.
  const auto onnx_opset = info.opsets.find("");
  if (const auto hazard =
          detail::find_inference_hazard(g, onnx_opset == info.opsets.end() ? 0 : onnx_opset->second))
    return bad_model(origin, "malformed graph: " + *hazard,
                     "fix the exporter or the file: no runtime can compute this node");
  note_element_types(g, info);
  describe_initializers(g, info);
  describe_nodes(g, info);
  std::set<std::string> integer_inputs;
  for (const ValueInfo& v : info.inputs)
    if (dtype_is_integer(v.dtype)) integer_inputs.insert(v.name);
  if (!integer_inputs.empty()) find_compared_inputs(g, {}, integer_inputs, info);
  return info;
}

Error too_large(const std::string& origin, std::uintmax_t bytes) {
  return bad_model(
      origin, "the file is " + std::to_string(bytes) + " bytes; protobuf cannot parse a model over 2 GiB",
      "save the model with its weights as external data (onnx.save_model(..., "
      "save_as_external_data=True))");
}

Error out_of_memory(const std::string& origin) {
  return make_error(ErrorKind::oom, Stage::load_model, origin + ": out of memory while parsing the model",
                    "free memory or use a machine with more RAM");
}

}  // namespace

Result<ModelInfo> inspect_model(const std::filesystem::path& path) {
  const std::string origin = path.string();
  try {
    PARITY_ASSIGN_OR_RETURN(size, detail::regular_file_size(path, Stage::load_model, "model"));
    if (size == 0)
      return bad_model(origin, "the file is empty (0 bytes), not an ONNX model",
                       "export or save the model again");
    if (size > detail::kMaxProtoBytes) return too_large(origin, size);

    // Parse straight from the file so a large model is not held twice (bytes plus parsed message).
    onnx::ModelProto m;
    {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        return make_error(ErrorKind::io, Stage::load_model,
                          origin + ": cannot open model: " + std::strerror(errno),
                          "check the file's permissions");
      google::protobuf::io::FileInputStream in(fd);
      in.SetCloseOnDelete(true);
      if (!detail::parse_message(in, m)) {
        if (in.GetErrno() != 0)
          return make_error(ErrorKind::io, Stage::load_model,
                            origin + ": read failed: " + std::strerror(in.GetErrno()),
                            "check the disk or network mount");
        // Failure path only: read the bytes back to say what is wrong with them.
        PARITY_ASSIGN_OR_RETURN(bytes, detail::read_file(path, Stage::load_model, "model"));
        return detail::parse_failure(bytes, *onnx::ModelProto::descriptor(), origin, Stage::load_model,
                                     kWhat);
      }
    }
    return describe_model(m, origin, size);
  } catch (const std::bad_alloc&) {
    return out_of_memory(origin);
  } catch (const std::exception& e) {
    return make_error(ErrorKind::internal, Stage::load_model, origin + ": unexpected error: " + e.what(),
                      "this is a bug in Parity: please report it with the file");
  }
}

Result<ModelInfo> inspect_model_bytes(const std::string& bytes, const std::string& origin) {
  try {
    if (bytes.empty())
      return bad_model(origin, "the file is empty (0 bytes), not an ONNX model",
                       "export or save the model again");
    if (bytes.size() > detail::kMaxProtoBytes) return too_large(origin, bytes.size());
    onnx::ModelProto m;
    if (!detail::parse_message(bytes, m))
      return detail::parse_failure(bytes, *onnx::ModelProto::descriptor(), origin, Stage::load_model, kWhat);
    return describe_model(m, origin, bytes.size());
  } catch (const std::bad_alloc&) {
    return out_of_memory(origin);
  } catch (const std::exception& e) {
    return make_error(ErrorKind::internal, Stage::load_model, origin + ": unexpected error: " + e.what(),
                      "this is a bug in Parity: please report it with the file");
  }
}

std::string weight_precision(const ModelInfo& info) {
  auto bytes = [&info](DType t) -> std::uintmax_t {
    const auto it = info.weight_bytes.find(t);
    return it == info.weight_bytes.end() ? 0 : it->second;
  };
  auto has_op = [&info](const char* op) { return info.op_counts.count(op) > 0; };
  const std::uintmax_t floats = bytes(DType::float32) + bytes(DType::float16) + bytes(DType::bfloat16);
  const std::uintmax_t nibbles = bytes(DType::int4) + bytes(DType::uint4);
  if (has_op("com.microsoft:MatMulNBits") || (nibbles > 0 && nibbles >= floats)) return "q4";
  // 8-bit weights only mean a quantized model when some op consumes them as such; a uint8 lookup
  // table in an fp32 model does not.
  const bool quantized = has_op("DequantizeLinear") || has_op("QLinearConv") || has_op("QLinearMatMul") ||
                         has_op("ConvInteger") || has_op("MatMulInteger") ||
                         has_op("com.microsoft:DequantizeLinear") || has_op("com.microsoft:QLinearConv");
  const std::uintmax_t i8 = bytes(DType::int8), u8 = bytes(DType::uint8);
  if (quantized && i8 + u8 >= floats) return u8 > i8 ? "uint8" : "int8";
  if (bytes(DType::float16) > bytes(DType::float32) && bytes(DType::float16) >= bytes(DType::bfloat16))
    return "fp16";
  if (bytes(DType::bfloat16) > bytes(DType::float32)) return "bf16";
  return "fp32";
}

}  // namespace parity::model
