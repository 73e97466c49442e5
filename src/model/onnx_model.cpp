#include "model/onnx_model.h"

#include <fcntl.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <unordered_set>

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

  auto note_type = [&info](int32_t onnx_type) {
    if (auto t = dtype_from_onnx(onnx_type)) info.element_types.insert(*t);
  };
  for (const auto* values : {&g.input(), &g.output(), &g.value_info()})
    for (const onnx::ValueInfoProto& v : *values)
      if (v.has_type() && v.type().has_tensor_type()) note_type(v.type().tensor_type().elem_type());
  for (const onnx::TensorProto& t : g.initializer()) note_type(t.data_type());
  for (const onnx::SparseTensorProto& t : g.sparse_initializer()) note_type(t.values().data_type());

  info.node_count = static_cast<std::size_t>(g.node_size());
  for (const onnx::NodeProto& n : g.node()) {
    if (is_default_domain(n.domain()) && (n.op_type() == "Cast" || n.op_type() == "Constant")) {
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (a.name() == "to") note_type(static_cast<int32_t>(a.i()));
        if (a.name() == "value" && a.has_t()) note_type(a.t().data_type());
      }
    }
    // Custom-domain ops are keyed "domain:Op" so that com.microsoft:Gelu does not count as ONNX Gelu.
    const bool standard = is_default_domain(n.domain());
    ++info.op_counts[standard ? n.op_type() : n.domain() + ":" + n.op_type()];
    if (standard && (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan"))
      info.has_control_flow = true;
  }
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

}  // namespace parity::model
