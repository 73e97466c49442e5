// fuzz/fuzz_checks.h: what the protobuf readers in src/model guarantee for ANY input bytes. Shared by
// the libFuzzer targets and tests/model/fuzz_corpus_test.cpp, so CI checks the same properties
// without clang.
#pragma once

#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>

#include "model/onnx_model.h"
#include "model/tensor_proto.h"

namespace parity::fuzz {

inline constexpr std::string_view kOrigin = "fuzz-input";

// A failure must be a well-formed value: the expected kind and stage, a message naming the input,
// a one-line hint.
inline std::string check_error(const Error& e, Stage stage) {
  if (e.kind != ErrorKind::bad_input && e.kind != ErrorKind::oom) return "unexpected kind: " + e.describe();
  if (e.stage != stage) return "unexpected stage: " + e.describe();
  if (e.message.rfind(std::string(kOrigin) + ": ", 0) != 0)
    return "message does not name the input: " + e.message;
  if (e.hint.empty() || e.hint.find('\n') != std::string::npos)
    return "hint is not one line: " + e.describe();
  return {};
}

// Empty when inspect_model_bytes kept its contract for `data`, else what broke.
inline std::string check_model_reader(std::string_view data) {
  const std::string bytes(data);
  const Result<model::ModelInfo> r = model::inspect_model_bytes(bytes, std::string(kOrigin));
  if (!r.ok()) return check_error(r.error(), Stage::load_model);
  if (r->outputs.empty()) return "accepted a model without outputs";
  for (const model::ValueInfo& v : r->inputs)
    if (v.dtype == DType::undefined) return "accepted input '" + v.name + "' without an element type";
  if (r->file_bytes != bytes.size()) return "file_bytes differs from the input size";
  const int ops = std::accumulate(r->op_counts.begin(), r->op_counts.end(), 0,
                                  [](int n, const auto& kv) { return n + kv.second; });
  if (static_cast<std::size_t>(ops) != r->node_count) return "op_counts do not add up to node_count";
  if (r->has_control_flow && !r->op_counts.count("If") && !r->op_counts.count("Loop") &&
      !r->op_counts.count("Scan"))
    return "control flow reported without If/Loop/Scan";
  return {};
}

// The tensor input's first byte picks the declared type (values past the last DType mean none), so
// the fuzzer also explores the 16-bit reinterpretation; the rest is the TensorProto.
inline std::optional<DType> declared_from(uint8_t selector) {
  if (selector > static_cast<uint8_t>(DType::int4)) return std::nullopt;
  return static_cast<DType>(selector);
}

// Empty when parse_tensor_proto kept its contract for `data`, and an accepted tensor is consistent
// and survives serialize -> parse unchanged.
inline std::string check_tensor_reader(std::string_view data) {
  if (data.empty()) return {};
  const std::optional<DType> declared = declared_from(static_cast<uint8_t>(data[0]));
  const Result<NamedTensor> r =
      model::parse_tensor_proto(std::string(data.substr(1)), std::string(kOrigin), declared);
  if (!r.ok()) return check_error(r.error(), Stage::prepare_inputs);
  const Tensor& t = r->tensor;
  if (t.numel() < 0) return "accepted a negative dimension";
  const auto numel = static_cast<std::size_t>(t.numel());
  if (t.dtype() == DType::string) {
    if (t.strings().size() != numel) return "string count differs from the shape";
  } else if (dtype_size(t.dtype()) == 0 || t.byte_size() != numel * dtype_size(t.dtype())) {
    return "byte size differs from the shape";
  }
  const Result<NamedTensor> back = model::parse_tensor_proto(model::serialize_tensor_proto(*r), "roundtrip");
  if (!back.ok()) return "serialized tensor does not parse: " + back.error().describe();
  if (!(*back == *r)) return "serialize -> parse changed the tensor";
  return {};
}

}  // namespace parity::fuzz
