// model/tensor_proto.h: ONNX TensorProto (.pb) files, the ONNX test-data format, to and from
// parity::Tensor. Reads raw_data and the typed repeated fields (float_data, int32_data, ...),
// including float16/bfloat16 stored in int32_data and bfloat16 saved as uint16 by older suites
// (pass `declared` to reinterpret). External data is refused with a clear error.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::model {

// Parses a serialized TensorProto. `declared`, when set, is the element type the graph declares
// for this tensor; a 16-bit payload stored under another 16-bit type is reinterpreted as it.
Result<NamedTensor> parse_tensor_proto(const std::string& bytes, const std::string& origin,
                                       std::optional<DType> declared = std::nullopt);
Result<NamedTensor> read_tensor_proto(const std::filesystem::path& path,
                                      std::optional<DType> declared = std::nullopt);

// Serializes with raw_data (strings use string_data). Never fails for a valid Tensor.
std::string serialize_tensor_proto(const NamedTensor& t);
Status write_tensor_proto(const std::filesystem::path& path, const NamedTensor& t);

}  // namespace parity::model
