#include "isolate/vulkan_layer.h"

#include <cstdlib>

#include "core/child_process.h"

namespace parity::isolate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLayerName = "VK_LAYER_PARITY_chaos";
constexpr const char* kManifestName = "parity_vk_chaos.json";

}  // namespace

Result<LayerLocation> find_layer(const std::string& explicit_path) {
  std::vector<fs::path> candidates;
  if (!explicit_path.empty()) {
    fs::path p(explicit_path);
    candidates.push_back(fs::is_directory(p) ? p / kManifestName : p);
  } else {
    const fs::path exe(current_executable());
    candidates.push_back(exe.parent_path().parent_path() / "lib" / kManifestName);
    candidates.push_back(fs::path(PARITY_CHAOS_BUILD_LAYER_DIR) / kManifestName);
  }
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return LayerLocation{fs::absolute(c, ec).lexically_normal()};
  }
  return make_error(ErrorKind::unavailable, Stage::parse_args,
                    "Parity's Vulkan layer manifest (" + std::string(kManifestName) + ") was not found at " +
                        candidates.front().string(),
                    "build the parity_vk_chaos target, or pass --layer PATH (env PARITY_CHAOS_LAYER)");
}

std::vector<std::pair<std::string, std::string>> layer_env(const LayerLocation& layer,
                                                           const std::string& spec) {
  // VK_ADD_LAYER_PATH (loader 1.3.234+, Debian has 1.3.239) adds our folder to the search instead
  // of replacing it as VK_LAYER_PATH would, so the caller's other layers still resolve.
  std::string add_path = layer.manifest.parent_path().string();
  if (const char* user = std::getenv("VK_ADD_LAYER_PATH"); user && *user) add_path += std::string(":") + user;
  std::string layers = kLayerName;
  if (const char* user = std::getenv("VK_INSTANCE_LAYERS"); user && *user)
    layers = std::string(user) + ":" + layers;
  return {{"VK_ADD_LAYER_PATH", add_path}, {"VK_INSTANCE_LAYERS", layers}, {"PARITY_CHAOS_FAULTS", spec}};
}

}  // namespace parity::isolate
