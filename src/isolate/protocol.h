// isolate/protocol.h: the messages between `parity` and its `parity worker` processes.
//
// Versioned and append-only: a field is never renamed or reused. Parent -> worker: one request
// frame, then its input tensor frames. Worker -> parent: stage frames as it goes, then either
// the output tensor frames followed by a result frame, or one error frame.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "backend/test_fault.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::isolate {

// 2: a tensor frame carries its element bytes first and its JSON meta last.
inline constexpr int kProtocolVersion = 2;

struct WorkerRequest {
  backend::BackendSpec spec;
  backend::RunRequest run;  // its inputs travel as tensor frames after the request frame
  std::optional<backend::TestFault> test_fault;
};

// "create-session:segv", the form parse_test_fault() reads.
std::string test_fault_to_string(const backend::TestFault& f);

nlohmann::json spec_to_json(const backend::BackendSpec& s);
Result<backend::BackendSpec> spec_from_json(const nlohmann::json& j);

// The request frame payload; the inputs of `run` are not included (they follow as tensor frames).
std::string encode_request(const backend::BackendSpec& spec, const backend::RunRequest& run,
                           const std::optional<backend::TestFault>& fault);
Result<WorkerRequest> decode_request(std::string_view payload);

// A tensor frame's payload is the element bytes, then JSON meta, then the meta's u32 length: the
// sender writes the bytes from the tensor's own buffer and the receiver keeps them where they
// landed, cutting the tail off (no copy of a 100 MB activation on either side).
Status write_tensor_frame(int fd, const NamedTensor& t);
Result<NamedTensor> decode_tensor(std::vector<std::byte> payload);

// The parent and its worker disagree on the frames (an internal error: they must be one build).
Error protocol_error(const std::string& what);

std::string encode_result(const backend::RunResult& r);  // result frame payload (no outputs)
Result<backend::RunResult> decode_result(std::string_view payload);

}  // namespace parity::isolate
