// backend/ort/ort_providers.h: Parity's short EP names and ONNX Runtime's names for them.
//
// Users and reports say "webgpu"; ORT lists "WebGpuExecutionProvider" and is appended as
// "WebGPU". This table is the only place that knows all three. No ORT headers needed.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace parity::backend::ort {

// How an EP is attached to session options.
enum class AppendMethod {
  none,         // the CPU EP is always there
  generic,      // SessionOptionsAppendExecutionProvider(append_name, keys, values)
  cuda_v2,      // CreateCUDAProviderOptions + UpdateCUDAProviderOptions + ..._CUDA_V2
  tensorrt_v2,  // the TensorRT counterparts
};

struct EpName {
  std::string_view short_name;     // "webgpu"
  std::string_view provider_name;  // "WebGpuExecutionProvider": GetAvailableProviders, profiles
  std::string_view append_name;    // "WebGPU": the generic append's provider_name
  AppendMethod method;
};

std::span<const EpName> known_eps();
// nullptr for names not in the table.
const EpName* find_ep_by_short_name(std::string_view short_name);

// "CUDAExecutionProvider" -> "cuda"; names not in the table lose "ExecutionProvider" and are
// lowercased ("FooBarExecutionProvider" -> "foobar").
std::string short_ep_name(std::string_view provider_name);

// Why an EP's provider library (libonnxruntime_providers_<ep>.so, which ORT looks for next to the
// library `ort_library_file`) does not load, as one line naming the missing file: ORT's status says
// only "Failed to load shared library" and leaves the loader's reason to its log. Repeats ORT's
// load (libonnxruntime_providers_shared.so, then the EP's) in this process. Empty when both load.
std::string diagnose_provider_library(const std::string& ort_library_file, std::string_view ep);

}  // namespace parity::backend::ort
