// backend/browser/page_reply.h: the one checked decoder for what the harness page answers.
//
// A reply crosses from a renderer Parity does not control (onnxruntime-web, a custom --chromium,
// a page that half-loaded), and the parent process reads it. Every field goes through a reader
// that records the first field with a wrong type or value, so a malformed reply becomes a typed
// Error (stage, the field's path, a hint) and never an exception that would end the whole run.
// tests/fixtures/browser/page_replies.json holds malformed replies and what each must become.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/browser/web_errors.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::backend::browser {

// {ok: true, ...} or {ok: false, error: {message, numeric}}: the failure, or nullopt on ok.
Result<std::optional<PageFailure>> decode_envelope(std::string_view function, const nlohmann::json& reply,
                                                   Stage stage);

struct LoadReply {
  std::string version;  // onnxruntime-web's env.versions.web; empty when the bundle has none
  int threads = 0;      // env.wasm.numThreads, 0 = onnxruntime-web's default
  bool isolated = false;
  std::optional<std::string> warmup_error;
};

struct AdapterInfo {
  std::string vendor, architecture, description;
  bool is_fallback = false;
  std::vector<std::string> features;
  std::vector<std::pair<std::string, std::string>> limits;  // name, value as JSON text
  std::optional<double> max_buffer_size;

  bool has_feature(std::string_view feature) const;
};

struct AdapterReply {
  bool gpu = false;                    // navigator.gpu exists
  std::optional<AdapterInfo> adapter;  // requestAdapter() gave one
};

struct PlacedNodes {
  std::string ep;
  int64_t nodes = 0;
};

struct CreateReply {
  double create_ms = 0;
  std::optional<std::vector<PlacedNodes>> placement;  // nullopt: ORT logged no placement
  std::vector<std::string> output_names;
  std::optional<bool> device_f16;
  std::vector<std::string> validation;
};

struct OutputInfo {
  std::string name, type;
  Shape dims;
};

struct RunReply {
  double run_ms = 0;
  std::vector<OutputInfo> outputs;
  std::vector<std::string> validation;
  std::optional<std::string> device_lost;
};

struct DiagnosticsReply {
  std::vector<std::string> ort_log;
};

// Each decodes the body of an ok reply of parity.<function>; a malformed one is an internal
// error at `stage` naming the first bad field.
Result<LoadReply> decode_load(const nlohmann::json& reply, Stage stage);
Result<AdapterReply> decode_adapter(const nlohmann::json& reply, Stage stage);
Result<CreateReply> decode_create(const nlohmann::json& reply, Stage stage);
Result<RunReply> decode_run(const nlohmann::json& reply, Stage stage);
Result<DiagnosticsReply> decode_diagnostics(const nlohmann::json& reply, Stage stage);

}  // namespace parity::backend::browser
