#include "chaos/layer/layer_state.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace parity::chaos::layer {
namespace {

constexpr const char* kFaultsEnv = "PARITY_CHAOS_FAULTS";

// One line per event, written with a single fprintf so lines from threads do not interleave.
void log_line(const char* text) { std::fprintf(stderr, "parity-chaos: %s\n", text); }

const char* action_name(FaultAction a) {
  switch (a) {
    case FaultAction::error: return "error";
    case FaultAction::null_handle: return "null";
    case FaultAction::device_lost: return "device-lost";
    case FaultAction::mask: return "mask";
  }
  return "?";
}

bool trigger_fires(const FaultSpec& f, uint64_t occurrence) {
  switch (f.trigger) {
    case Trigger::every: return true;
    case Trigger::nth: return occurrence == f.n;
    case Trigger::from: return occurrence >= f.n;
    case Trigger::probability: return probability_fires(f.seed, occurrence, f.probability);
  }
  return false;
}

}  // namespace

LayerState& state() {
  static LayerState* s = new LayerState;  // deliberately never destroyed (see the header)
  return *s;
}

void LayerState::load_faults_from_env() {
  const char* raw = std::getenv(kFaultsEnv);
  const std::string value = raw ? raw : "";
  std::lock_guard lock(mutex_);
  if (env_loaded_ && value == env_value_) return;
  env_loaded_ = true;
  env_value_ = value;
  std::string error;
  if (!parse_fault_list(value, faults_, error)) {
    // A layer cannot fail an application for a typo in a test setting; it says so and injects
    // nothing, and the runner validates specs with the same parser before launching a worker.
    faults_.clear();
    const std::string line = "error=\"" + error + "\" faults=none";
    log_line(line.c_str());
  }
  calls_seen_.assign(faults_.size(), 0);
  mask_logged_.assign(faults_.size(), false);
  if (!faults_.empty()) {
    const std::string line = "loaded faults=\"" + value + "\" count=" + std::to_string(faults_.size());
    log_line(line.c_str());
  }
}

void LayerState::add_instance(DispatchKey key, InstanceTable table) {
  std::lock_guard lock(mutex_);
  instances_[key] = table;
}

std::optional<InstanceTable> LayerState::instance(DispatchKey key) {
  std::lock_guard lock(mutex_);
  auto it = instances_.find(key);
  if (it == instances_.end()) return std::nullopt;
  return it->second;
}

void LayerState::remove_instance(DispatchKey key) {
  std::lock_guard lock(mutex_);
  instances_.erase(key);
}

void LayerState::add_device(DispatchKey key, DeviceTable table) {
  std::lock_guard lock(mutex_);
  devices_[key] = table;
}

std::optional<DeviceTable> LayerState::device(DispatchKey key) {
  std::lock_guard lock(mutex_);
  auto it = devices_.find(key);
  if (it == devices_.end()) return std::nullopt;
  return it->second;
}

void LayerState::remove_device(DispatchKey key) {
  std::lock_guard lock(mutex_);
  devices_.erase(key);
}

void LayerState::mark_device_lost(DispatchKey key) {
  std::lock_guard lock(mutex_);
  if (auto it = devices_.find(key); it != devices_.end()) it->second.lost = true;
}

std::optional<Injection> LayerState::on_call(const char* call) {
  std::lock_guard lock(mutex_);
  std::optional<Injection> hit;
  for (std::size_t i = 0; i < faults_.size(); ++i) {
    const FaultSpec& f = faults_[i];
    if (f.action == FaultAction::mask || f.call != call) continue;
    const uint64_t occurrence = ++calls_seen_[i];
    if (hit || !trigger_fires(f, occurrence)) continue;
    hit = Injection{i, f.action, f.vk_result};
    char line[512];
    std::snprintf(line, sizeof line,
                  "injected fault=%zu spec=\"%s\" call=%s action=%s occurrence=%llu result=%s", i,
                  f.text.c_str(), call, action_name(f.action), static_cast<unsigned long long>(occurrence),
                  f.action == FaultAction::null_handle ? "VK_SUCCESS+VK_NULL_HANDLE"
                                                       : vk_result_name(f.vk_result).c_str());
    log_line(line);
  }
  return hit;
}

template <typename T>
void LayerState::clamp(const char* name, T& value, const char* query) {
  for (std::size_t i = 0; i < faults_.size(); ++i) {
    const FaultSpec& f = faults_[i];
    if (f.action != FaultAction::mask || f.mask_name != name) continue;
    const T masked = static_cast<T>(f.mask_value);
    if (static_cast<uint64_t>(value) <= f.mask_value) continue;  // masks only ever shrink
    if (!mask_logged_[i]) {
      mask_logged_[i] = true;
      char line[512];
      std::snprintf(line, sizeof line, "injected fault=%zu spec=\"%s\" call=%s action=mask %s=%llu->%llu", i,
                    f.text.c_str(), query, name, static_cast<unsigned long long>(value),
                    static_cast<unsigned long long>(masked));
      log_line(line);
    }
    value = masked;
  }
}

void LayerState::mask_limits(VkPhysicalDeviceLimits& l) {
  std::lock_guard lock(mutex_);
  const char* q = "vkGetPhysicalDeviceProperties";
  clamp("maxStorageBufferRange", l.maxStorageBufferRange, q);
  clamp("maxUniformBufferRange", l.maxUniformBufferRange, q);
  clamp("maxComputeSharedMemorySize", l.maxComputeSharedMemorySize, q);
  clamp("maxComputeWorkGroupInvocations", l.maxComputeWorkGroupInvocations, q);
  for (auto& v : l.maxComputeWorkGroupSize) clamp("maxComputeWorkGroupSize", v, q);
  for (auto& v : l.maxComputeWorkGroupCount) clamp("maxComputeWorkGroupCount", v, q);
  clamp("maxBoundDescriptorSets", l.maxBoundDescriptorSets, q);
  clamp("maxPerStageDescriptorStorageBuffers", l.maxPerStageDescriptorStorageBuffers, q);
  clamp("maxMemoryAllocationCount", l.maxMemoryAllocationCount, q);
}

void LayerState::mask_memory(VkPhysicalDeviceMemoryProperties& m) {
  std::lock_guard lock(mutex_);
  for (uint32_t i = 0; i < m.memoryHeapCount && i < VK_MAX_MEMORY_HEAPS; ++i)
    clamp("heapSize", m.memoryHeaps[i].size, "vkGetPhysicalDeviceMemoryProperties");
}

void LayerState::mask_features(VkPhysicalDeviceFeatures& f) {
  std::lock_guard lock(mutex_);
  const char* q = "vkGetPhysicalDeviceFeatures";
  clamp("robustBufferAccess", f.robustBufferAccess, q);
  clamp("shaderFloat64", f.shaderFloat64, q);
  clamp("shaderInt64", f.shaderInt64, q);
  clamp("shaderInt16", f.shaderInt16, q);
}

void LayerState::mask_feature_chain(void* next) {
  std::lock_guard lock(mutex_);
  const char* q = "vkGetPhysicalDeviceFeatures2";
  for (auto* s = static_cast<VkBaseOutStructure*>(next); s != nullptr; s = s->pNext) {
    switch (s->sType) {
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES: {
        auto* f = reinterpret_cast<VkPhysicalDeviceShaderFloat16Int8Features*>(s);
        clamp("shaderFloat16", f->shaderFloat16, q);
        clamp("shaderInt8", f->shaderInt8, q);
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: {
        auto* f = reinterpret_cast<VkPhysicalDeviceVulkan12Features*>(s);
        clamp("shaderFloat16", f->shaderFloat16, q);
        clamp("shaderInt8", f->shaderInt8, q);
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES: {
        auto* f = reinterpret_cast<VkPhysicalDevice16BitStorageFeatures*>(s);
        clamp("storageBuffer16BitAccess", f->storageBuffer16BitAccess, q);
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES: {
        auto* f = reinterpret_cast<VkPhysicalDeviceVulkan11Features*>(s);
        clamp("storageBuffer16BitAccess", f->storageBuffer16BitAccess, q);
        break;
      }
      default: break;
    }
  }
}

}  // namespace parity::chaos::layer
