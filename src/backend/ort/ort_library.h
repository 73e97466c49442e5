// backend/ort/ort_library.h: loading libonnxruntime at run time and picking its API table.
//
// Each library path is dlopen'ed once per process (RTLD_LOCAL, so two ORT versions can sit side
// by side) and never closed: ORT keeps thread pools and static state whose teardown from a
// dlclose is not supported. The OrtApi table is asked for the headers' version first, falling
// back to older versions down to kMinApiVersion, so older releases (1.29, ...) still load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ort/ort_api.h"
#include "backend/ort/ort_guard.h"
#include "parity/result.h"

namespace parity::backend::ort {

struct OrtLibrary {
  std::string path;        // as given (after resolving the default)
  std::string file;        // the file the loader opened (dladdr): ORT finds provider libraries beside it
  void* handle = nullptr;  // dlopen handle, process-lived
  const OrtApiBase* base = nullptr;
  const OrtApi* api = nullptr;  // the table for api_version
  uint32_t api_version = 0;     // the OrtApi version obtained
  std::string version;          // GetVersionString(): "1.30.0"
};

// Picks the newest OrtApi table `base` serves, from min(kHeaderApiVersion, the library's minor
// version) down to kMinApiVersion. {nullptr, 0} when none is served (library too old).
struct NegotiatedApi {
  const OrtApi* api = nullptr;
  uint32_t version = 0;
};
NegotiatedApi negotiate_api(const OrtApiBase& base, const std::string& library_version);

// The library Parity uses when a spec leaves ort_lib empty: $PARITY_ORT_LIB, else the one bootstrap
// fetched for this build (PARITY_DEFAULT_ORT_LIB) where it exists, else libonnxruntime.so.1 on the
// loader's search path (an application linking the installed guard ships its own ORT).
std::string default_ort_library_path();

// Loads `path` (empty = default) or returns the already loaded one. Errors carry the guard's
// stage (load_library): io for a missing file, unavailable when dlopen fails or the library is
// older than kMinApiVersion, bad_input when the file is not an ONNX Runtime library. Thread-safe.
// The returned object lives until the process exits.
Result<const OrtLibrary*> load_ort_library(const std::string& path, OrtGuard& guard);

// The providers built into the library whose table `guard` holds, as ORT names them
// ("WebGpuExecutionProvider", ...), in ORT's order.
Result<std::vector<std::string>> available_providers(OrtGuard& guard);

}  // namespace parity::backend::ort
