#include "backend/ort/ort_library.h"

#include <dlfcn.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "backend/ort/ort_backend.h"
#include "backend/ort/ort_providers.h"
#include "backend/ort/ort_telemetry.h"

#ifndef PARITY_DEFAULT_ORT_LIB
#error "PARITY_DEFAULT_ORT_LIB must be defined by the build (src/CMakeLists.txt)"
#endif

namespace parity::backend::ort {
namespace {

constexpr const char* kBootstrapHint = "run scripts/bootstrap.sh, or pass the path of a libonnxruntime.so";

// ORT 1.x serves API versions 1..x; knowing x lets us ask for a version it has first, instead of
// making GetApi print "requested API version is not available" for each newer one we try.
uint32_t minor_version(const std::string& version) {
  const auto dot = version.find('.');
  if (dot == std::string::npos) return 0;
  uint32_t minor = 0;
  const char* begin = version.data() + dot + 1;
  std::from_chars(begin, version.data() + version.size(), minor);
  return minor;
}

struct Cache {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<OrtLibrary>> libraries;
};

Cache& cache() {
  // Leaked on purpose: libraries are never unloaded, and their records must outlive any static
  // destructor that might still run ORT code at exit.
  static Cache* instance = new Cache;
  return *instance;
}

// A process that loads ORT itself (the guard in an application, `parity accept`) gets the switch a
// worker gets in its environment: it must be set before the library loads. A value the caller set
// stays.
void keep_telemetry_off() {
  for (const auto& [name, value] : ort_telemetry_off_env()) setenv(name.c_str(), value.c_str(), 0);
}

}  // namespace

NegotiatedApi negotiate_api(const OrtApiBase& base, const std::string& library_version) {
  if (base.GetApi == nullptr) return {};
  uint32_t want = kHeaderApiVersion;
  if (const uint32_t minor = minor_version(library_version); minor >= kMinApiVersion && minor < want)
    want = minor;
  for (uint32_t v = want; v >= kMinApiVersion; --v)
    if (const OrtApi* api = base.GetApi(v)) return {api, v};
  return {};
}

std::string default_ort_library_path() {
  if (const char* env = std::getenv("PARITY_ORT_LIB"); env && *env) return env;
  std::error_code ec;
  if (std::filesystem::exists(PARITY_DEFAULT_ORT_LIB, ec)) return PARITY_DEFAULT_ORT_LIB;
  return "libonnxruntime.so.1";  // an installed application's own, on the loader's search path
}

Result<const OrtLibrary*> load_ort_library(const std::string& path_in, OrtGuard& guard) {
  const std::string path = path_in.empty() ? default_ort_library_path() : path_in;
  std::error_code ec;
  if (path.find('/') != std::string::npos && !std::filesystem::exists(path, ec))
    return guard.error(ErrorKind::io, "ONNX Runtime library not found: " + path, kBootstrapHint);

  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  const std::string key = std::filesystem::weakly_canonical(path, ec).string();
  auto& slot = c.libraries[ec ? path : key];

  // The cached record is re-checked through the guard each time, so PARITY_TEST_FAULT's null at
  // load_library behaves the same on a first and a later load.
  if (!slot) keep_telemetry_off();
  void* handle = slot ? slot->handle : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string failure = "dlopen(" + path + ") failed";
  if (handle == nullptr) {
    const char* why = dlerror();
    failure += std::string(": ") + (why ? why : "unknown error");
  }
  PARITY_TRY(guard.require(handle, failure, ErrorKind::unavailable,
                           "the library or one of its dependencies cannot be loaded on this machine"));
  if (slot) return slot.get();

  using GetApiBaseFn = const OrtApiBase* (*)();
  void* symbol = dlsym(handle, "OrtGetApiBase");
  PARITY_TRY(guard.require(symbol, path + " has no OrtGetApiBase symbol", ErrorKind::bad_input,
                           "this file is not an ONNX Runtime library"));
  auto get_base = reinterpret_cast<GetApiBaseFn>(symbol);
  const OrtApiBase* base = get_base();
  PARITY_TRY(guard.require(base, "OrtGetApiBase() returned null", ErrorKind::error));
  const char* version_text = base->GetVersionString ? base->GetVersionString() : nullptr;
  const std::string version = version_text ? version_text : "unknown";

  const NegotiatedApi negotiated = negotiate_api(*base, version);
  const OrtApi* api = negotiated.api;
  PARITY_TRY(guard.require(api,
                           "ONNX Runtime " + version + " serves no OrtApi version in " +
                               std::to_string(kMinApiVersion) + ".." + std::to_string(kHeaderApiVersion),
                           ErrorKind::unavailable,
                           "ONNX Runtime " + version + " is older than Parity supports (1." +
                               std::to_string(kMinApiVersion) + " or newer)"));

  auto lib = std::make_unique<OrtLibrary>();
  lib->path = path;
  Dl_info where{};
  lib->file = dladdr(symbol, &where) != 0 && where.dli_fname ? where.dli_fname : path;
  lib->handle = handle;
  lib->base = base;
  lib->api = api;
  lib->api_version = negotiated.version;
  lib->version = version;
  slot = std::move(lib);
  return slot.get();
}

Result<std::vector<std::string>> available_providers(OrtGuard& guard) {
  const OrtApi* api = guard.api();
  char** names = nullptr;
  int count = 0;
  Status listed =
      guard.call("GetAvailableProviders", [&] { return api->GetAvailableProviders(&names, &count); });
  ProviderList list(api, names, count);  // owned before any check
  PARITY_TRY(listed);
  PARITY_TRY(guard.require(names, "GetAvailableProviders reported success but returned a null list"));
  std::vector<std::string> out;
  for (int i = 0; i < list.size(); ++i)
    if (list.at(i) != nullptr) out.emplace_back(list.at(i));
  return out;
}

Result<OrtLibraryInfo> probe_ort_library(const std::string& ort_lib) {
  OrtGuard guard("ort", std::nullopt);
  guard.enter(Stage::load_library);
  PARITY_ASSIGN_OR_RETURN(lib, load_ort_library(ort_lib, guard));
  guard.set_api(lib->api);
  guard.enter(Stage::append_provider);
  PARITY_ASSIGN_OR_RETURN(providers, available_providers(guard));
  OrtLibraryInfo info;
  info.path = lib->path;
  info.version = lib->version;
  info.api_version = lib->api_version;
  for (const std::string& p : providers) info.eps.push_back(short_ep_name(p));
  info.providers = std::move(providers);
  return info;
}

Result<std::vector<std::string>> list_available_eps(const std::string& ort_lib) {
  PARITY_ASSIGN_OR_RETURN(info, probe_ort_library(ort_lib));
  return info.eps;
}

}  // namespace parity::backend::ort
