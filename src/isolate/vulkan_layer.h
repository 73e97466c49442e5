// isolate/vulkan_layer.h: loading Parity's Vulkan layer (VK_LAYER_PARITY_chaos) into one worker.
//
// `parity chaos` injects driver faults through it; a backend spec's `vk-mask=LIMIT=VALUE` uses it
// to present a smaller device limit to one backend (a GPU with less, e.g. for a sweep's size
// search), with the real driver below doing the work.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "parity/result.h"

namespace parity::isolate {

struct LayerLocation {
  std::filesystem::path manifest;  // parity_vk_chaos.json
};

// Finds the layer manifest: `explicit_path` (a .json or its folder) if given, else next to the
// running binary (../lib), else the build tree this binary was built in. unavailable Error if none.
Result<LayerLocation> find_layer(const std::string& explicit_path);

// Extra environment that loads the layer with fault list `spec` (chaos/fault_spec.h) in one worker,
// appended to the caller's VK_INSTANCE_LAYERS rather than replacing it. An empty spec loads the
// layer with no faults.
std::vector<std::pair<std::string, std::string>> layer_env(const LayerLocation& layer,
                                                           const std::string& spec);

}  // namespace parity::isolate
