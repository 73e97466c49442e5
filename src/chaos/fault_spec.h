// chaos/fault_spec.h: the text form of one Vulkan fault, shared by the layer and the runner.
//
// Both sides must read a spec the same way (the runner validates and names what the layer will
// inject), so this file depends on nothing but the standard library and the Vulkan headers: it is
// compiled into the layer .so as well as into parity_chaos. Errors are plain strings here because
// the layer cannot link Parity's Error/Result; the runner wraps them.
//
// Grammar (items separated by ';'):
//   CALL:error[=VK_ERROR_NAME][@TRIGGER]   CALL returns that VkResult (default per call below)
//   CALL:null[@TRIGGER]                    CALL returns VK_SUCCESS but writes VK_NULL_HANDLE
//   vkQueueSubmit:device-lost[@TRIGGER]    from the triggering submit on, the device is lost
//   mask:NAME=VALUE                        clamp a limit/heap size (K/M/G suffixes) or hide a
//                                          feature (VALUE 0) in vkGetPhysicalDevice*(2)
//   TRIGGER: every (default) | nth=N (only the Nth call, 1-based) | from=N (the Nth and later) |
//            p=P[,seed=S] (each call with probability P, deterministic per seed)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parity::chaos {

enum class FaultAction {
  error,        // return an error VkResult without calling the driver
  null_handle,  // return VK_SUCCESS with VK_NULL_HANDLE in the output (the seed's case)
  device_lost,  // VK_ERROR_DEVICE_LOST from this submit and from later device calls
  mask,         // present a smaller limit or a missing feature
};

enum class Trigger { every, nth, from, probability };

struct FaultSpec {
  std::string text;  // the item as written, trimmed; names the fault in logs and reports
  std::string call;  // Vulkan entry point, or "mask"
  FaultAction action = FaultAction::error;
  int32_t vk_result = 0;    // VkResult for FaultAction::error
  std::string mask_name;    // limit or feature for FaultAction::mask
  uint64_t mask_value = 0;  // new limit (bytes or count); 0 hides a feature
  Trigger trigger = Trigger::every;
  uint64_t n = 0;          // for nth/from, 1-based
  double probability = 0;  // for Trigger::probability, in [0, 1]
  uint64_t seed = 0;       // for Trigger::probability
};

// Parses a ';'-separated list; on failure returns false and says why (naming the item) in `error`.
bool parse_fault_list(std::string_view text, std::vector<FaultSpec>& out, std::string& error);

// Calls a fault may target, in the order the docs list them.
const std::vector<std::string_view>& fault_calls();
// Limits and features `mask:` understands.
const std::vector<std::string_view>& maskable_limits();
const std::vector<std::string_view>& maskable_features();

// "VK_ERROR_DEVICE_LOST" for -4; "VkResult N" for values without a name here.
std::string vk_result_name(int32_t result);

// Deterministic per-call coin for Trigger::probability: the same (seed, occurrence) always gives
// the same answer, so a probabilistic fault replays exactly from its spec.
bool probability_fires(uint64_t seed, uint64_t occurrence, double probability);

}  // namespace parity::chaos
