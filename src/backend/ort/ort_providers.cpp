#include "backend/ort/ort_providers.h"

#include <array>
#include <cctype>

namespace parity::backend::ort {
namespace {

// Append names are the ones ORT's generic append accepts (its "Unknown provider name" message
// lists them); ORT also accepts the full provider name there, which unknown EPs fall back to.
constexpr std::array<EpName, 17> kEps{{
    {"cpu", "CPUExecutionProvider", "CPU", AppendMethod::none},
    {"webgpu", "WebGpuExecutionProvider", "WebGPU", AppendMethod::generic},
    {"cuda", "CUDAExecutionProvider", "CUDA", AppendMethod::cuda_v2},
    {"tensorrt", "TensorrtExecutionProvider", "TensorRT", AppendMethod::tensorrt_v2},
    {"xnnpack", "XnnpackExecutionProvider", "XNNPACK", AppendMethod::generic},
    {"qnn", "QNNExecutionProvider", "QNN", AppendMethod::generic},
    {"openvino", "OpenVINOExecutionProvider", "OpenVINO", AppendMethod::generic},
    {"coreml", "CoreMLExecutionProvider", "CoreML", AppendMethod::generic},
    {"dml", "DmlExecutionProvider", "DML", AppendMethod::generic},
    {"snpe", "SNPEExecutionProvider", "SNPE", AppendMethod::generic},
    {"webnn", "WebNNExecutionProvider", "WEBNN", AppendMethod::generic},
    {"azure", "AzureExecutionProvider", "AZURE", AppendMethod::generic},
    {"js", "JsExecutionProvider", "JS", AppendMethod::generic},
    {"vitisai", "VitisAIExecutionProvider", "VitisAI", AppendMethod::generic},
    {"nvtensorrtrtx", "NvTensorRTRTXExecutionProvider", "NvTensorRtRtx", AppendMethod::generic},
    {"migraphx", "MIGraphXExecutionProvider", "MIGraphX", AppendMethod::generic},
    {"rocm", "ROCMExecutionProvider", "ROCMExecutionProvider", AppendMethod::generic},
}};

}  // namespace

std::span<const EpName> known_eps() { return kEps; }

const EpName* find_ep_by_short_name(std::string_view short_name) {
  for (const EpName& ep : kEps)
    if (ep.short_name == short_name) return &ep;
  return nullptr;
}

std::string short_ep_name(std::string_view provider_name) {
  for (const EpName& ep : kEps)
    if (ep.provider_name == provider_name) return std::string(ep.short_name);
  constexpr std::string_view kSuffix = "ExecutionProvider";
  if (provider_name.size() > kSuffix.size() && provider_name.ends_with(kSuffix))
    provider_name.remove_suffix(kSuffix.size());
  std::string out;
  for (char c : provider_name) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace parity::backend::ort
