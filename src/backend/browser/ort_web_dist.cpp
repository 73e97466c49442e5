#include "backend/browser/ort_web_dist.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#ifndef PARITY_THIRD_PARTY_DIR
#define PARITY_THIRD_PARTY_DIR "third_party"
#endif

namespace parity::backend::browser {
namespace {

namespace fs = std::filesystem;

constexpr std::array<WebPathInfo, 3> kPaths{{
    {WebPath::wasm, "web-wasm", "ort.wasm.bundle.min.mjs", "wasm", "CPUExecutionProvider", false},
    {WebPath::jsep, "web-jsep", "ort.bundle.min.mjs", "webgpu", "JsExecutionProvider", true},
    {WebPath::webgpu, "web-webgpu", "ort.webgpu.bundle.min.mjs", "webgpu", "WebGpuExecutionProvider", true},
}};

Error dist_error(std::string message, std::string hint) {
  return make_error(ErrorKind::unavailable, Stage::load_library, std::move(message), std::move(hint));
}

std::string package_version(const fs::path& package_json) {
  std::ifstream in(package_json);
  if (!in) return {};
  auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j.value("version", "") : "";
}

}  // namespace

std::optional<WebPathInfo> web_path_for(std::string_view backend) {
  for (const auto& p : kPaths)
    if (p.backend == backend) return p;
  return std::nullopt;
}

Result<OrtWebDist> locate_ort_web(const std::string& spec) {
  const std::string wanted = spec.empty() ? std::string(kDefaultOrtWebVersion) : spec;
  const bool is_dir = wanted.find('/') != std::string::npos;
  fs::path root = is_dir ? fs::path(wanted) : fs::path(PARITY_THIRD_PARTY_DIR) / ("ort-web-" + wanted);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    if (is_dir)
      return dist_error("onnxruntime-web folder " + root.string() + " does not exist",
                        "pass the package folder of an unpacked onnxruntime-web (it has dist/)");
    return dist_error("onnxruntime-web " + wanted + " is not fetched (no " + root.string() + ")",
                      "run scripts/fetch_ort_web.sh " + wanted);
  }
  OrtWebDist d;
  fs::path dist = fs::is_directory(root / "dist", ec) ? root / "dist" : root;
  if (fs::is_directory(root / "package" / "dist", ec)) dist = root / "package" / "dist";
  d.dist_dir = fs::absolute(dist, ec).lexically_normal().string();
  for (const fs::path& pj : {dist.parent_path() / "package.json", dist / "package.json"})
    if (d.version.empty()) d.version = package_version(pj);
  return d;
}

bool ort_web_takes(DType t) {
  switch (t) {
    case DType::float32:
    case DType::float64:
    case DType::float16:
    case DType::int8:
    case DType::uint8:
    case DType::int16:
    case DType::uint16:
    case DType::int32:
    case DType::uint32:
    case DType::int64:
    case DType::uint64:
    case DType::boolean: return true;
    default: return false;
  }
}

Status check_bundle(const OrtWebDist& dist, const WebPathInfo& path) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(dist.dist_dir) / path.bundle, ec)) return ok_status();
  return dist_error("onnxruntime-web " + (dist.version.empty() ? dist.dist_dir : dist.version) + " has no " +
                        std::string(path.bundle) + " (needed by " + std::string(path.backend) + ")",
                    "this release predates that bundle; use another backend or a newer version");
}

}  // namespace parity::backend::browser
