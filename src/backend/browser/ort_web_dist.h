// backend/browser/ort_web_dist.h: finding an onnxruntime-web distribution on disk, and the three
// onnxruntime-web paths (wasm, JSEP WebGPU, native WebGPU EP) with the bundle each one loads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "parity/dtype.h"
#include "parity/result.h"

namespace parity::backend::browser {

// One onnxruntime-web execution path. The three are separate builds of ORT, each in its own
// ES-module bundle with its own .wasm binary.
enum class WebPath {
  wasm,    // web-wasm: the CPU EP compiled to WebAssembly (SIMD, threads)
  jsep,    // web-jsep: WebGPU through the JavaScript EP (JSEP), the bundle `onnxruntime-web` imports
  webgpu,  // web-webgpu: ORT's native WebGPU EP compiled to wasm (`onnxruntime-web/webgpu`)
};

struct WebPathInfo {
  WebPath path;
  std::string_view backend;   // "web-wasm"
  std::string_view bundle;    // "ort.wasm.bundle.min.mjs"
  std::string_view ort_ep;    // executionProviders entry: "wasm" or "webgpu"
  std::string_view provider;  // provider name in ORT's placement log for this path
  bool uses_gpu;
};

// The path a backend name selects ("web-wasm", "web-jsep", "web-webgpu"); nullopt otherwise.
std::optional<WebPathInfo> web_path_for(std::string_view backend);

// The onnxruntime-web version bootstrap fetches and backends use by default.
inline constexpr std::string_view kDefaultOrtWebVersion = "1.30.0";

struct OrtWebDist {
  std::string dist_dir;  // absolute folder holding the bundles
  std::string version;   // package.json "version"; empty if there is none
};

// Resolves `spec`: empty = the default version; a version ("1.22.0") = the folder
// scripts/fetch_ort_web.sh fills (third_party/ort-web-VERSION); anything with a '/' = a folder,
// either a package root (with dist/) or the dist folder itself. Errors are unavailable (with
// the fetch command in the hint) at Stage::load_library.
Result<OrtWebDist> locate_ort_web(const std::string& spec);

// Element types onnxruntime-web's Tensor takes (its names are ONNX's): the numeric types and bool,
// not strings, bfloat16, float8, complex or 4-bit types.
bool ort_web_takes(DType t);

// Checks that `dist` has the bundle of `path`; older releases lack some (1.20 has no wasm bundle).
Status check_bundle(const OrtWebDist& dist, const WebPathInfo& path);

}  // namespace parity::backend::browser
