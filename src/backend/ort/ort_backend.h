// backend/ort/ort_backend.h: the ONNX Runtime backend, for every EP the loaded library offers.
//
// Includes no ORT header, so the registry and the worker can use it; `struct OrtApi` is only
// named for the test seam. Process-wide facts callers should know:
//   - libonnxruntime is dlopen'ed per path and never unloaded (see ort_library.h);
//   - ORT's OrtEnv is a process singleton (CreateEnv while one is alive returns the same env, and
//     its first creator's logging settings win). Each run holds its own reference and releases
//     it when done, so when nothing else holds one, a run starts from a fresh env;
//   - the WebGPU EP's Dawn instance, and so its adapter, lives as long as that env: the Vulkan
//     driver choice (vulkan_adapter.h) only takes effect for an env created after it. Parity's
//     workers run one backend per process, which makes this moot there.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/test_fault.h"

struct OrtApi;

namespace parity::backend::ort {

// What a library offers, without creating a session.
struct OrtLibraryInfo {
  std::string path;                    // the library loaded
  std::string version;                 // "1.30.0"
  uint32_t api_version = 0;            // the OrtApi version Parity uses with it
  std::vector<std::string> providers;  // ORT's names, in ORT's order ("WebGpuExecutionProvider", ...)
  std::vector<std::string> eps;        // the same as Parity's short names ("webgpu", ...)
};

// Loads `ort_lib` (empty = the bundled default) and lists its providers. Errors are those of
// the load_library and append_provider stages. Thread-safe.
Result<OrtLibraryInfo> probe_ort_library(const std::string& ort_lib);

// Short lowercase names of the EPs built into `ort_lib`: "cpu", "webgpu", "cuda", ...
// Built in is not the same as usable: CUDA is listed even where its provider library is missing.
Result<std::vector<std::string>> list_available_eps(const std::string& ort_lib);

// Test seams. Production code uses make_ort_backend(spec) and PARITY_TEST_FAULT.
struct OrtBackendSeams {
  // Replaces the library's OrtApi table for every call after GetApi (still loads the library),
  // so tests can swap single functions of the real table for failing stubs. Must outlive run().
  const OrtApi* api = nullptr;
  // Used instead of PARITY_TEST_FAULT when set.
  std::optional<TestFault> fault;
};

// The backend for `spec` (any EP name: unknown or missing EPs fail at append_provider).
std::unique_ptr<Backend> make_ort_backend(BackendSpec spec, OrtBackendSeams seams = {});

}  // namespace parity::backend::ort
