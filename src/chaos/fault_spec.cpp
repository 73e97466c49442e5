#include "chaos/fault_spec.h"

#include <vulkan/vulkan_core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace parity::chaos {
namespace {

struct NamedResult {
  std::string_view name;
  int32_t value;
};

constexpr NamedResult kResults[] = {
    {"VK_SUCCESS", VK_SUCCESS},
    {"VK_ERROR_OUT_OF_HOST_MEMORY", VK_ERROR_OUT_OF_HOST_MEMORY},
    {"VK_ERROR_OUT_OF_DEVICE_MEMORY", VK_ERROR_OUT_OF_DEVICE_MEMORY},
    {"VK_ERROR_INITIALIZATION_FAILED", VK_ERROR_INITIALIZATION_FAILED},
    {"VK_ERROR_DEVICE_LOST", VK_ERROR_DEVICE_LOST},
    {"VK_ERROR_MEMORY_MAP_FAILED", VK_ERROR_MEMORY_MAP_FAILED},
    {"VK_ERROR_LAYER_NOT_PRESENT", VK_ERROR_LAYER_NOT_PRESENT},
    {"VK_ERROR_EXTENSION_NOT_PRESENT", VK_ERROR_EXTENSION_NOT_PRESENT},
    {"VK_ERROR_FEATURE_NOT_PRESENT", VK_ERROR_FEATURE_NOT_PRESENT},
    {"VK_ERROR_INCOMPATIBLE_DRIVER", VK_ERROR_INCOMPATIBLE_DRIVER},
    {"VK_ERROR_TOO_MANY_OBJECTS", VK_ERROR_TOO_MANY_OBJECTS},
    {"VK_ERROR_UNKNOWN", VK_ERROR_UNKNOWN},
    {"VK_ERROR_INVALID_SHADER_NV", VK_ERROR_INVALID_SHADER_NV},
    {"VK_ERROR_OUT_OF_POOL_MEMORY", VK_ERROR_OUT_OF_POOL_MEMORY},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool parse_u64(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// "64K" -> 65536; plain numbers are taken as they are (counts or bytes).
bool parse_size(std::string_view s, uint64_t& out) {
  uint64_t scale = 1;
  if (!s.empty()) {
    switch (std::toupper(static_cast<unsigned char>(s.back()))) {
      case 'K': scale = 1ull << 10; break;
      case 'M': scale = 1ull << 20; break;
      case 'G': scale = 1ull << 30; break;
      default: break;
    }
    if (scale != 1) s.remove_suffix(1);
  }
  if (!parse_u64(s, out)) return false;
  out *= scale;
  return true;
}

// The driver's typical answer for a failing call of this kind, used by a bare "error".
int32_t default_error(std::string_view call) {
  if (call == "vkCreateInstance" || call == "vkCreateDevice") return VK_ERROR_INITIALIZATION_FAILED;
  if (call == "vkQueueSubmit") return VK_ERROR_DEVICE_LOST;
  return VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

bool contains(const std::vector<std::string_view>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool parse_trigger(std::string_view t, FaultSpec& f, std::string& why) {
  if (t == "every") return true;
  if (t.rfind("nth=", 0) == 0 || t.rfind("from=", 0) == 0) {
    const bool nth = t[0] == 'n';
    if (!parse_u64(t.substr(t.find('=') + 1), f.n) || f.n == 0) {
      why = "trigger '" + std::string(t) + "' needs a positive integer";
      return false;
    }
    f.trigger = nth ? Trigger::nth : Trigger::from;
    return true;
  }
  if (t.rfind("p=", 0) == 0) {
    std::string_view rest = t.substr(2), seed;
    if (auto comma = rest.find(','); comma != std::string_view::npos) {
      seed = rest.substr(comma + 1);
      rest = rest.substr(0, comma);
      if (seed.rfind("seed=", 0) != 0 || !parse_u64(seed.substr(5), f.seed)) {
        why = "probability trigger takes p=P[,seed=S]";
        return false;
      }
    }
    const std::string p(rest);
    char* end = nullptr;
    f.probability = std::strtod(p.c_str(), &end);
    if (p.empty() || end != p.c_str() + p.size() || !(f.probability >= 0 && f.probability <= 1)) {
      why = "probability '" + p + "' must be a number in [0, 1]";
      return false;
    }
    f.trigger = Trigger::probability;
    return true;
  }
  why = "unknown trigger '" + std::string(t) + "' (every, nth=N, from=N, p=P[,seed=S])";
  return false;
}

// mask:NAME=VALUE, hiding a limit or feature from the application (no trigger: every query).
bool parse_mask(std::string_view action, std::string_view trigger, FaultSpec& f, std::string& why) {
  if (!trigger.empty()) {
    why = "mask faults apply to every query; they take no trigger";
    return false;
  }
  const auto eq = action.find('=');
  f.action = FaultAction::mask;
  f.mask_name = std::string(trim(action.substr(0, eq)));
  if (eq == std::string_view::npos || !parse_size(trim(action.substr(eq + 1)), f.mask_value)) {
    why = "mask takes NAME=VALUE (K/M/G suffixes allowed)";
    return false;
  }
  if (!contains(maskable_limits(), f.mask_name) && !contains(maskable_features(), f.mask_name)) {
    why = "cannot mask '" + f.mask_name + "'";
    return false;
  }
  if (contains(maskable_features(), f.mask_name) && f.mask_value != 0) {
    why = "a feature can only be hidden (" + f.mask_name + "=0)";
    return false;
  }
  return true;
}

bool parse_item(std::string_view item, FaultSpec& f, std::string& why) {
  f.text = std::string(item);
  std::string_view trigger;
  if (auto at = item.find('@'); at != std::string_view::npos) {
    trigger = trim(item.substr(at + 1));
    item = trim(item.substr(0, at));
  }
  const auto colon = item.find(':');
  if (colon == std::string_view::npos) {
    why = "expected CALL:ACTION";
    return false;
  }
  f.call = std::string(trim(item.substr(0, colon)));
  const std::string_view action = trim(item.substr(colon + 1));

  if (f.call == "mask") return parse_mask(action, trigger, f, why);
  if (!contains(fault_calls(), f.call)) {
    why = "cannot inject into '" + f.call + "'";
    return false;
  }
  if (!trigger.empty() && !parse_trigger(trigger, f, why)) return false;

  if (action == "null") {
    // The loader itself writes through the VkInstance/VkDevice a layer returns, so a null one
    // would crash the loader, not the code under test; submits have no handle to null.
    if (f.call == "vkCreateInstance" || f.call == "vkCreateDevice" || f.call == "vkQueueSubmit") {
      why = "null handles are only handed out by resource creation calls, not " + f.call;
      return false;
    }
    f.action = FaultAction::null_handle;
    return true;
  }
  if (action == "device-lost") {
    if (f.call != "vkQueueSubmit") {
      why = "device-lost is injected at vkQueueSubmit";
      return false;
    }
    f.action = FaultAction::device_lost;
    f.vk_result = VK_ERROR_DEVICE_LOST;
    return true;
  }
  if (action == "error" || action.rfind("error=", 0) == 0) {
    f.action = FaultAction::error;
    f.vk_result = default_error(f.call);
    if (action.size() > 6) {
      const std::string_view name = action.substr(6);
      const auto* hit = std::find_if(std::begin(kResults), std::end(kResults),
                                     [&](const NamedResult& r) { return r.name == name; });
      if (hit == std::end(kResults) || hit->value >= 0) {
        why = "unknown error code '" + std::string(name) + "'";
        return false;
      }
      f.vk_result = hit->value;
    }
    return true;
  }
  why = "unknown action '" + std::string(action) + "' (error[=VK_ERROR_...], null, device-lost)";
  return false;
}

}  // namespace

const std::vector<std::string_view>& fault_calls() {
  static const std::vector<std::string_view> calls = {
      "vkCreateInstance",         "vkCreateDevice",         "vkCreateShaderModule",
      "vkCreateComputePipelines", "vkCreatePipelineLayout", "vkCreateDescriptorSetLayout",
      "vkAllocateMemory",         "vkCreateBuffer",         "vkQueueSubmit",
  };
  return calls;
}

const std::vector<std::string_view>& maskable_limits() {
  static const std::vector<std::string_view> limits = {
      "maxStorageBufferRange",      "maxUniformBufferRange",
      "maxComputeSharedMemorySize", "maxComputeWorkGroupInvocations",
      "maxComputeWorkGroupSize",    "maxComputeWorkGroupCount",
      "maxBoundDescriptorSets",     "maxPerStageDescriptorStorageBuffers",
      "maxMemoryAllocationCount",   "heapSize",
  };
  return limits;
}

const std::vector<std::string_view>& maskable_features() {
  static const std::vector<std::string_view> features = {
      "robustBufferAccess",
      "shaderFloat64",
      "shaderInt64",
      "shaderInt16",
      "shaderFloat16",
      "shaderInt8",
      "storageBuffer16BitAccess",
  };
  return features;
}

bool parse_fault_list(std::string_view text, std::vector<FaultSpec>& out, std::string& error) {
  out.clear();
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t semi = text.find(';', pos);
    const std::string_view item =
        trim(text.substr(pos, semi == std::string_view::npos ? text.npos : semi - pos));
    pos = semi == std::string_view::npos ? text.size() + 1 : semi + 1;
    if (item.empty()) continue;
    FaultSpec f;
    std::string why;
    if (!parse_item(item, f, why)) {
      error = "fault '" + std::string(item) + "': " + why;
      return false;
    }
    out.push_back(std::move(f));
  }
  return true;
}

std::string vk_result_name(int32_t result) {
  for (const auto& r : kResults)
    if (r.value == result) return std::string(r.name);
  return "VkResult " + std::to_string(result);
}

bool probability_fires(uint64_t seed, uint64_t occurrence, double probability) {
  // splitmix64 of (seed, occurrence): portable, so a seed replays on every machine.
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + occurrence + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0) < probability;
}

}  // namespace parity::chaos
