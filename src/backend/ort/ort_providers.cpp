#include "backend/ort/ort_providers.h"

#include <dlfcn.h>

#include <array>
#include <cctype>
#include <filesystem>

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

namespace {

// Loads `file` as ORT does; on failure the loader's reason, the missing dependency named first.
std::string load_failure(const std::filesystem::path& file, int flags) {
  if (void* handle = dlopen(file.c_str(), flags)) {
    // The shared bridge stays loaded (ORT keeps it so too); an EP library is only tried.
    if ((flags & RTLD_GLOBAL) == 0) dlclose(handle);
    return {};
  }
  const char* why = dlerror();
  std::string reason = why ? why : "unknown loader error";
  constexpr std::string_view kNotFound = ": cannot open shared object file";
  if (const auto at = reason.find(kNotFound); at != std::string::npos) {
    const std::string missing = reason.substr(0, at);
    if (missing != file.string())
      return file.filename().string() + " needs " + missing +
             ", which the loader cannot find: put the folder that holds it on LD_LIBRARY_PATH";
  }
  return "cannot load " + file.filename().string() + ": " + reason;
}

}  // namespace

std::string diagnose_provider_library(const std::string& ort_library_file, std::string_view ep) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::absolute(fs::path(ort_library_file)).parent_path();
  const fs::path shared = folder / "libonnxruntime_providers_shared.so";
  const fs::path provider = folder / ("libonnxruntime_providers_" + std::string(ep) + ".so");
  std::error_code ec;
  for (const fs::path& file : {shared, provider})
    if (!fs::exists(file, ec))
      return file.filename().string() + " is not next to " + ort_library_file +
             ": ONNX Runtime loads EP libraries from its own folder only; copy a GPU build's "
             "libonnxruntime_providers_*.so of the same release there";
  if (std::string failure = load_failure(shared, RTLD_NOW | RTLD_GLOBAL); !failure.empty()) return failure;
  return load_failure(provider, RTLD_LAZY | RTLD_LOCAL);
}

}  // namespace parity::backend::ort
