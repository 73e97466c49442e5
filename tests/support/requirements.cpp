#include "support/requirements.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace parity::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kChromium = "/usr/lib/chromium/chromium";
constexpr const char* kSwiftShaderIcd = "/usr/lib/chromium/vk_swiftshader_icd.json";
constexpr const char* kMockIcd = "/usr/lib/chromium/libVkICD_mock_icd.so";
constexpr const char* kOnnxTestData = "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx";

bool any_gpu_icd() {
  for (const char* dir : {"/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".json") return true;
  }
  return false;
}

bool loads(const char* library) {
  void* h = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) ::dlclose(h);
  return h != nullptr;
}

}  // namespace

bool in_ci() {
  const char* ci = std::getenv("PARITY_CI");
  return ci != nullptr && std::string_view(ci) == "1";
}

std::string unmet_requirement(std::string_view r) {
  const std::string install = " (scripts/bootstrap.sh installs it)";
  if (r == "chromium")
    return ::access(kChromium, X_OK) == 0 ? "" : std::string("no Chromium at ") + kChromium + install;
  if (r == "webgpu-adapter")
    return fs::exists(kSwiftShaderIcd) || any_gpu_icd()
               ? ""
               : std::string("no Vulkan driver for WebGPU: neither SwiftShader (") + kSwiftShaderIcd +
                     ") nor a GPU ICD" + install;
  if (r == "mock-icd")
    return fs::exists(kMockIcd) ? ""
                                : std::string("Chromium's mock Vulkan ICD is not at ") + kMockIcd + install;
  if (r == "vulkan-loader")
    return loads("libvulkan.so.1") ? "" : "no libvulkan.so.1 (Debian libvulkan1)" + install;
  if (r == "onnx-testdata")
    return fs::exists(kOnnxTestData)
               ? ""
               : "the ONNX backend test data (Debian libonnx-testdata) is missing" + install;
  if (r == "numpy")
    return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0
               ? ""
               : "/usr/bin/python3 with numpy (Debian python3-numpy) is not installed" + install;
  if (r == "ocr-models") {
    const std::string models = std::string(PARITY_THIRD_PARTY) + "/models/";
    for (const char* f :
         {"ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx"})
      if (!fs::exists(models + f)) return "no " + models + f + install;
    return "";
  }
  if (r == "vad-model") {
    const std::string model = std::string(PARITY_THIRD_PARTY) + "/models/silero_vad_v5.onnx";
    return fs::exists(model) ? "" : "no " + model + install;
  }
  if (r == "corpus-models") {
    const std::string corpus = std::string(PARITY_THIRD_PARTY) + "/models/corpus/";
    for (const char* f : {"silero_vad_v4.onnx", "silero_vad_v5_livekit.onnx", "owwjs_hello_deepa.onnx",
                          "oww_melspectrogram.onnx", "oww_embedding_model.onnx", "oww_timer_v0.1.onnx"})
      if (!fs::exists(corpus + f)) return "no " + corpus + f + install;
    return "";
  }
  if (r == "slow") {
    const char* skip = std::getenv("PARITY_SKIP_SLOW");
    return skip != nullptr && std::string_view(skip) == "1" ? "a slow test, and PARITY_SKIP_SLOW=1" : "";
  }
  return "unknown requirement '" + std::string(r) +
         "' (known: chromium, webgpu-adapter, mock-icd, vulkan-loader, onnx-testdata, numpy, ocr-models, "
         "vad-model, corpus-models, slow)";
}

}  // namespace parity::testing
