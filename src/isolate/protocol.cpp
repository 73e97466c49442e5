#include "isolate/protocol.h"

#include <cstring>

#include "core/json_io.h"
#include "isolate/frame_io.h"

namespace parity::isolate {
namespace {

using nlohmann::json;

json key_values_to_json(const backend::KeyValues& kv) {
  json j = json::array();
  for (const auto& [k, v] : kv) j.push_back({k, v});
  return j;
}

backend::KeyValues key_values_from_json(const json& j) {
  backend::KeyValues kv;
  if (!j.is_array()) return kv;
  for (const auto& p : j)
    if (p.is_array() && p.size() == 2) kv.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
  return kv;
}

std::string_view fault_action_name(backend::FaultAction a) {
  switch (a) {
    case backend::FaultAction::segv: return "segv";
    case backend::FaultAction::abort: return "abort";
    case backend::FaultAction::hang: return "hang";
    case backend::FaultAction::null_result: return "null";
    case backend::FaultAction::oom: return "oom";
    case backend::FaultAction::device_lost: return "device-lost";
    case backend::FaultAction::stall: return "stall";
    case backend::FaultAction::oom_crash: return "oom-crash";
  }
  return "segv";
}

}  // namespace

Error protocol_error(const std::string& what) {
  return make_error(ErrorKind::internal, Stage::spawn_worker, "worker protocol: " + what,
                    "parent and worker binaries must be the same Parity build");
}

std::string test_fault_to_string(const backend::TestFault& f) {
  return std::string(to_string(f.stage)) + ":" + std::string(fault_action_name(f.action)) +
         (f.first_only ? ":first" : "");
}

json spec_to_json(const backend::BackendSpec& s) {
  return {{"label", s.label},
          {"ep", s.ep},
          {"ort_lib", s.ort_lib},
          {"opt_level", s.opt_level},
          {"allow_fallback", s.allow_fallback},
          {"provider_options", key_values_to_json(s.provider_options)},
          {"session_config", key_values_to_json(s.session_config)},
          {"webgpu_adapter", s.webgpu_adapter},
          {"intra_op_threads", s.intra_op_threads},
          {"count_nodes", s.count_nodes},
          {"max_memory_bytes", s.max_memory_bytes},
          {"vulkan_faults", s.vulkan_faults},
          {"optimized_model_path", s.optimized_model_path},
          {"ort_web", s.ort_web},
          {"browser", s.browser},
          {"browser_args", s.browser_args},
          {"log_level", s.log_level},
          {"check_features", s.check_features}};
}

Result<backend::BackendSpec> spec_from_json(const json& j) {
  try {
    backend::BackendSpec s;
    s.label = j.at("label");
    s.ep = j.at("ep");
    s.ort_lib = j.value("ort_lib", "");
    s.opt_level = j.value("opt_level", "all");
    s.allow_fallback = j.value("allow_fallback", true);
    s.provider_options = key_values_from_json(j.value("provider_options", json::array()));
    s.session_config = key_values_from_json(j.value("session_config", json::array()));
    s.webgpu_adapter = j.value("webgpu_adapter", "auto");
    s.intra_op_threads = j.value("intra_op_threads", 0);
    s.count_nodes = j.value("count_nodes", true);
    s.max_memory_bytes = j.value("max_memory_bytes", uint64_t{0});
    s.vulkan_faults = j.value("vulkan_faults", "");
    s.optimized_model_path = j.value("optimized_model_path", "");
    s.ort_web = j.value("ort_web", "");
    s.browser = j.value("browser", "");
    s.browser_args = j.value("browser_args", std::vector<std::string>{});
    s.log_level = j.value("log_level", "");
    s.check_features = j.value("check_features", true);
    return s;
  } catch (const json::exception& e) {
    return protocol_error(std::string("bad backend spec: ") + e.what());
  }
}

std::string encode_request(const backend::BackendSpec& spec, const backend::RunRequest& run,
                           const std::optional<backend::TestFault>& fault) {
  json j = {{"protocol", kProtocolVersion},    {"spec", spec_to_json(spec)},
            {"model_path", run.model_path},    {"output_names", run.output_names},
            {"warmup_runs", run.warmup_runs},  {"fresh", run.fresh},
            {"input_count", run.inputs.size()}};
  if (!run.more_inputs.empty()) {
    std::vector<std::size_t> counts;
    for (const auto& set : run.more_inputs) counts.push_back(set.size());
    j["more_input_counts"] = counts;  // their tensor frames follow the inputs', set by set
  }
  if (fault) j["test_fault"] = test_fault_to_string(*fault);
  return j.dump();
}

Result<WorkerRequest> decode_request(std::string_view payload) {
  json j = json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return protocol_error("request is not a JSON object");
  if (j.value("protocol", 0) != kProtocolVersion)
    return protocol_error("protocol version " + std::to_string(j.value("protocol", 0)) + ", expected " +
                          std::to_string(kProtocolVersion));
  WorkerRequest r;
  PARITY_ASSIGN_OR_RETURN(spec, spec_from_json(j.value("spec", json::object())));
  r.spec = std::move(spec);
  try {
    r.run.model_path = j.at("model_path");
    r.run.output_names = j.value("output_names", std::vector<std::string>{});
    r.run.warmup_runs = j.value("warmup_runs", 0);
    r.run.fresh = j.value("fresh", false);
    r.run.inputs.resize(j.value("input_count", std::size_t{0}));
    for (std::size_t n : j.value("more_input_counts", std::vector<std::size_t>{}))
      r.run.more_inputs.emplace_back(n);
  } catch (const json::exception& e) {
    return protocol_error(std::string("bad request: ") + e.what());
  }
  if (j.contains("test_fault") && j["test_fault"].is_string()) {
    PARITY_ASSIGN_OR_RETURN(fault, backend::parse_test_fault(j["test_fault"].get<std::string>()));
    r.test_fault = fault;
  }
  return r;
}

Status write_tensor_frame(int fd, const NamedTensor& t) {
  std::string tail = tensor_meta_to_json(t).dump();
  const auto len = static_cast<uint32_t>(tail.size());
  tail.append(reinterpret_cast<const char*>(&len), 4);  // little-endian hosts only
  return write_frame(fd, FrameType::tensor, {t.tensor.bytes(), as_bytes(tail)});
}

Result<NamedTensor> decode_tensor(std::vector<std::byte> payload) {
  uint32_t len = 0;
  if (payload.size() < 4) return protocol_error("short tensor frame");
  std::memcpy(&len, payload.data() + payload.size() - 4, 4);
  if (payload.size() < 4 + std::size_t{len}) return protocol_error("tensor metadata past start of frame");
  const std::size_t data_bytes = payload.size() - 4 - len;
  json meta = json::parse(std::string_view(reinterpret_cast<const char*>(payload.data()) + data_bytes, len),
                          nullptr, false);
  if (meta.is_discarded()) return protocol_error("tensor metadata is not JSON");
  auto dtype = dtype_from_name(meta.value("dtype", ""));
  if (!dtype) return protocol_error("tensor of unknown dtype " + meta.value("dtype", std::string("?")));
  Shape shape = meta.value("shape", Shape{});
  NamedTensor nt;
  nt.name = meta.value("name", "");
  if (*dtype == DType::string) {
    nt.tensor = Tensor::from_strings(std::move(shape), meta.value("strings", std::vector<std::string>{}));
    return nt;
  }
  payload.resize(data_bytes);  // the elements stay where they were read
  PARITY_ASSIGN_OR_RETURN(tensor, Tensor::from_bytes(*dtype, std::move(shape), std::move(payload)));
  nt.tensor = std::move(tensor);
  return nt;
}

std::string encode_result(const backend::RunResult& r) {
  std::vector<std::size_t> more_counts;
  for (const auto& set : r.more_outputs) more_counts.push_back(set.size());
  return json{{"runtime_version", r.runtime_version},
              {"more_output_counts", more_counts},
              {"adapter", r.adapter},
              {"nodes_on_backend", r.nodes_on_backend},
              {"nodes_on_cpu", r.nodes_on_cpu},
              {"create_ms", r.create_ms},
              {"setup_ms", r.setup_ms},
              {"run_ms", r.run_ms},
              {"notes", r.notes},
              {"cpu_nodes", key_values_to_json(r.cpu_nodes)},
              {"properties", key_values_to_json(r.properties)}}
      .dump();
}

Result<backend::RunResult> decode_result(std::string_view payload) {
  json j = json::parse(payload, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return protocol_error("result is not a JSON object");
  backend::RunResult r;
  r.runtime_version = j.value("runtime_version", "");
  r.adapter = j.value("adapter", "");
  r.nodes_on_backend = j.value("nodes_on_backend", int64_t{-1});
  r.nodes_on_cpu = j.value("nodes_on_cpu", int64_t{-1});
  r.create_ms = j.value("create_ms", 0.0);
  r.setup_ms = j.value("setup_ms", 0.0);
  r.run_ms = j.value("run_ms", 0.0);
  r.notes = j.value("notes", std::vector<std::string>{});
  r.cpu_nodes = key_values_from_json(j.value("cpu_nodes", json::array()));
  r.properties = key_values_from_json(j.value("properties", json::array()));
  // Sized here, filled by the reader: their tensor frames came after the outputs', set by set.
  for (std::size_t n : j.value("more_output_counts", std::vector<std::size_t>{}))
    r.more_outputs.emplace_back(n);
  return r;
}

}  // namespace parity::isolate
