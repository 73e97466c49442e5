// model/proto_io.h: protobuf plumbing shared by onnx_model and tensor_proto. Internal to src/model;
// nothing outside this folder includes it (it names protobuf types).
#pragma once

#include <climits>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "core/file_io.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace google::protobuf {
class Descriptor;
class Message;
class MessageLite;
namespace io {
class ZeroCopyInputStream;
}  // namespace io
}  // namespace google::protobuf

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace parity::model::detail {

// Protobuf cannot address a message over 2 GiB; larger models must keep weights as external data.
inline constexpr std::uintmax_t kMaxProtoBytes = INT_MAX;

// Size of `path` after checking it is an existing regular file. Missing, directory, other file
// kinds -> ErrorKind::io at `stage`; `what` names the file in messages ("model", "tensor file").
Result<std::uintmax_t> regular_file_size(const std::filesystem::path& path, Stage stage,
                                         std::string_view what);

// Reads all of `path` (checked as above); read failures -> ErrorKind::io at `stage`.
Result<std::string> read_file(const std::filesystem::path& path, Stage stage, std::string_view what);

// Parses one whole message with the total-bytes limit raised to kMaxProtoBytes (older protobufs
// default to 64 MiB) and the recursion limit left at protobuf's default, so nesting cannot overflow
// the stack. Returns false for malformed input. May throw std::bad_alloc; callers catch it.
bool parse_message(google::protobuf::io::ZeroCopyInputStream& in, google::protobuf::Message& msg);
bool parse_message(std::string_view bytes, google::protobuf::Message& msg);

// Why `bytes` failed to parse as `type`, found by walking the wire format (protobuf itself only says
// "failed"). Used on the error path only.
struct WireProblem {
  enum class Kind {
    none,          // framing is intact everywhere we looked; the cause is elsewhere
    truncated,     // the input ends inside a known field: the file was cut short
    not_protobuf,  // the top level is not protobuf framing of this type at all
    corrupt,       // a nested field is malformed (damaged file)
  };
  Kind kind = Kind::none;
  std::string where;   // dotted field path of the damaged field, "graph.node[3]"; empty at top level
  std::string detail;  // one phrase with byte offsets
};
WireProblem find_wire_problem(std::string_view bytes, const google::protobuf::Descriptor& type);

// A name from the file, safe to put in a one-line message: control bytes become '?' and names
// longer than 80 bytes are cut (damaged files can hold any bytes there).
std::string printable(std::string_view name);

// Turns a failed parse of `bytes` (as `type`) into a bad_input Error at `stage`, such as
// "<origin>: the file is truncated: ...". `what` has its article: "an ONNX model", "a TensorProto".
Error parse_failure(std::string_view bytes, const google::protobuf::Descriptor& type,
                    const std::string& origin, Stage stage, std::string_view what);

// Serializes `m` to `dst` (truncating it); internal error if protobuf cannot, io error if the write fails.
Status save_model(const onnx::ModelProto& m, const std::filesystem::path& dst);

// Serializes `m` straight into `out`'s descriptor (no copy held in memory); io error naming it.
Status serialize_into(const google::protobuf::MessageLite& m, OutputFile& out);

// Decodes a TensorProto already parsed (an initializer, a Constant's value) with the rules and
// errors of parse_tensor_proto (tensor_proto.cpp): raw_data or typed fields, external data refused.
Result<NamedTensor> tensor_from_proto(const onnx::TensorProto& p, const std::string& origin,
                                      std::optional<DType> declared = std::nullopt);

// Reads the external bytes of `t` (an initializer of the model at `model`) into its raw_data and
// drops its external_data entries, so a cut of the model stands alone (external_data.cpp). Errors
// as external_file_path (external_data.h); a range past the file's end is bad_input.
Status inline_external_data(onnx::TensorProto& t, const std::filesystem::path& model);

// The model module's border for an analysis of an untrusted file: nothing the file provokes leaves
// as an exception. bad_alloc -> oom, any other exception -> internal, each naming the file.
Error model_border_error(const std::filesystem::path& path, const std::exception& e);
template <class Analyse>
auto at_model_border(const std::filesystem::path& path, Analyse&& analyse) -> decltype(analyse()) {
  try {
    return analyse();
  } catch (const std::exception& e) {
    return model_border_error(path, e);
  }
}

}  // namespace parity::model::detail
