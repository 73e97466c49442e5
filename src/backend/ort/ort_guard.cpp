#include "backend/ort/ort_guard.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>

namespace parity::backend::ort {
namespace {

bool contains_ci(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

bool contains_any_ci(std::string_view haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return contains_ci(haystack, n); });
}

constexpr std::string_view kInjected = " (injected by PARITY_TEST_FAULT)";
constexpr const char* kNullHint =
    "ONNX Runtime gave neither an object nor an error: a bug in ORT or its EP; keep the repro";

}  // namespace

std::string error_code_name(OrtErrorCode code) {
  static constexpr std::array<std::string_view, 16> kNames{"ORT_OK",
                                                           "ORT_FAIL",
                                                           "ORT_INVALID_ARGUMENT",
                                                           "ORT_NO_SUCHFILE",
                                                           "ORT_NO_MODEL",
                                                           "ORT_ENGINE_ERROR",
                                                           "ORT_RUNTIME_EXCEPTION",
                                                           "ORT_INVALID_PROTOBUF",
                                                           "ORT_MODEL_LOADED",
                                                           "ORT_NOT_IMPLEMENTED",
                                                           "ORT_INVALID_GRAPH",
                                                           "ORT_EP_FAIL",
                                                           "ORT_MODEL_LOAD_CANCELED",
                                                           "ORT_MODEL_REQUIRES_COMPILATION",
                                                           "ORT_NOT_FOUND",
                                                           "ORT_DEVICE_RESET"};
  const auto i = static_cast<std::size_t>(code);
  if (i < kNames.size()) return std::string(kNames[i]);
  return "ORT_ERROR_" + std::to_string(static_cast<int>(code));
}

Classification classify_ort_error(OrtErrorCode code, std::string_view message, Stage stage) {
  // Messages first: ORT reports most "cannot run here" cases as a plain ORT_FAIL.
  if (contains_any_ci(message, {"No supported adapters", "Failed to get a WebGPU adapter"}))
    return {ErrorKind::unavailable,
            "Dawn found no usable GPU adapter: check the Vulkan driver (vulkaninfo), or use "
            "--webgpu-adapter swiftshader"};
  if (contains_any_ci(message,
                      {"Unknown provider name", "not supported in this build", "not enabled in this build"}))
    return {ErrorKind::unavailable,
            "this ONNX Runtime build lacks that EP: point --ort-lib at a build that has it"};
  if (contains_any_ci(
          message, {"Failed to load shared library", "Failed to load library", "cannot open shared object"}))
    return {ErrorKind::unavailable,
            "the EP's provider library (libonnxruntime_providers_<ep>.so, next to libonnxruntime) or its "
            "runtime (CUDA, cuDNN, TensorRT) is missing. The bundled "
            "onnxruntime-node build ships none: point --ort-lib at a GPU build (npm "
            "com.github.asus4.onnxruntime.linux-x64-gpu has 1.29's) and put CUDA on LD_LIBRARY_PATH"};
  if (contains_any_ci(message, {"bad_alloc", "Failed to allocate", "out of memory", "OutOfMemory"}))
    return {ErrorKind::oom, "reduce the input size or batch, or free (device) memory"};
  if (contains_ci(message, "but the device does not support it"))  // e.g. f16 shaders on SwiftShader
    return {ErrorKind::unavailable,
            "the adapter lacks a feature this model needs (shader-f16 for float16 models)"};
  if (contains_ci(message, "fallback to CPU EP has been explicitly disabled"))
    return {ErrorKind::unavailable,
            "some nodes cannot run on this EP; allow CPU fallback to run them on the CPU instead"};
  // The same refusal for a node no EP has a kernel for (WebGPU and (u)int16 BitShift/Max/Min),
  // surfacing as an internal check of ORT's memcpy transformer rather than a clean message.
  if (contains_ci(message, "Provider type for") && contains_ci(message, "is not set"))
    return {ErrorKind::unavailable,
            "no execution provider took this node (an internal ORT check says so); with CPU fallback off "
            "the EP has no kernel for it, and the CPU EP may lack one too"};
  switch (code) {
    case ORT_NO_SUCHFILE: return {ErrorKind::io, "check that the model file exists and is readable"};
    case ORT_INVALID_PROTOBUF: return {ErrorKind::bad_input, "the file is not a valid ONNX model"};
    case ORT_NOT_IMPLEMENTED:
      return {ErrorKind::unavailable, "this ONNX Runtime build has no kernel for an op or type of the model"};
    case ORT_INVALID_GRAPH:
      return {ErrorKind::error,
              "ONNX Runtime rejected the graph: validate the model (onnx.checker), or retry with --opt-level "
              "disabled to rule out an optimizer fault"};
    case ORT_INVALID_ARGUMENT:
      if (stage == Stage::run && contains_any_ci(message, {"input", "output"}))
        return {ErrorKind::bad_input, "check input names, element types and shapes against the model"};
      return {ErrorKind::error, {}};
    default: return {ErrorKind::error, {}};
  }
}

void OrtGuard::enter(Stage stage) {
  stage_ = stage;
  armed_ = fault_ && fault_->stage == stage &&
           (fault_->action == FaultAction::null_result || fault_->action == FaultAction::oom);
}

Error OrtGuard::error(ErrorKind kind, std::string message, std::string hint) const {
  Error e = make_error(kind, stage_, std::move(message), std::move(hint));
  e.backend = backend_;
  return e;
}

Status OrtGuard::require(const void* p, std::string message, ErrorKind kind, std::string hint) {
  const bool injected = take_injection() != Injection::none;
  if (p != nullptr && !injected) return ok_status();
  if (injected) message += kInjected;
  if (hint.empty() && kind == ErrorKind::error) hint = kNullHint;
  return error(kind, std::move(message), std::move(hint));
}

OrtGuard::Injection OrtGuard::take_injection() {
  if (!armed_) return Injection::none;
  armed_ = false;
  return fault_->action == FaultAction::oom ? Injection::oom : Injection::null_result;
}

Status OrtGuard::check_status(std::string_view call_name, OrtStatus* raw) {
  if (raw == nullptr) return ok_status();
  assert(api_ != nullptr && "an ORT call was guarded before set_api(): load_library must come first");
  Owned<OrtStatus> status(raw, Releaser<OrtStatus>{api_});
  // Copy ORT's text before the status is released; GetErrorMessage is documented non-null, but a
  // broken build returning null must not crash us either.
  const char* text = api_->GetErrorMessage(status.get());
  return failure_error(call_name, api_->GetErrorCode(status.get()), text ? text : "(no message)");
}

Error OrtGuard::failure_error(std::string_view call_name, OrtErrorCode code, std::string_view message) const {
  Classification c = classify_ort_error(code, message, stage_);
  return error(c.kind, std::string(call_name) + ": " + error_code_name(code) + ": " + std::string(message),
               std::move(c.hint));
}

Error OrtGuard::injected_failure(std::string_view call_name) const {
  return failure_error(call_name, ORT_FAIL, "failed" + std::string(kInjected));
}

Error OrtGuard::injected_oom(std::string_view call_name) const {
  return failure_error(call_name, ORT_FAIL,
                       "std::bad_alloc after allocating until failure" + std::string(kInjected));
}

Error OrtGuard::null_error(std::string_view call_name) const {
  return error(ErrorKind::error,
               std::string(call_name) + " reported success but returned a null object" +
                   (injected_null_ ? std::string(kInjected) : std::string()),
               kNullHint);
}

}  // namespace parity::backend::ort
