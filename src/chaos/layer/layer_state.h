// chaos/layer/layer_state.h: the layer's only global state: dispatch tables of the next layer or
// driver, keyed by dispatch key, and the active faults with their call counters.
//
// A Vulkan layer is entered through free functions the loader calls with nothing but Vulkan
// handles, so this state has to be global; it lives here, in one object, behind one mutex.
// Every entry point takes the mutex only to copy what it needs, never across a call down the
// chain (the driver may call back, and other threads submit concurrently).
#pragma once

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "chaos/fault_spec.h"

namespace parity::chaos::layer {

// The loader stores its dispatch table pointer in the first word of every dispatchable handle;
// an instance and its physical devices share one, a device and its queues/command buffers another.
using DispatchKey = void*;
template <typename Handle>
DispatchKey dispatch_key(Handle h) {
  return *reinterpret_cast<DispatchKey*>(h);
}

struct InstanceTable {
  VkInstance instance = VK_NULL_HANDLE;
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  PFN_vkDestroyInstance destroy_instance = nullptr;
  PFN_vkGetPhysicalDeviceProperties get_properties = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 get_properties2 = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 get_properties2_khr = nullptr;
  PFN_vkGetPhysicalDeviceFeatures get_features = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 get_features2 = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 get_features2_khr = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties get_memory = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties2 get_memory2 = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties2 get_memory2_khr = nullptr;
};

struct DeviceTable {
  VkDevice device = VK_NULL_HANDLE;
  PFN_vkGetDeviceProcAddr get_device_proc_addr = nullptr;
  PFN_vkDestroyDevice destroy_device = nullptr;
  PFN_vkCreateShaderModule create_shader_module = nullptr;
  PFN_vkCreateComputePipelines create_compute_pipelines = nullptr;
  PFN_vkCreatePipelineLayout create_pipeline_layout = nullptr;
  PFN_vkCreateDescriptorSetLayout create_descriptor_set_layout = nullptr;
  PFN_vkAllocateMemory allocate_memory = nullptr;
  PFN_vkCreateBuffer create_buffer = nullptr;
  PFN_vkQueueSubmit queue_submit = nullptr;
  PFN_vkQueueWaitIdle queue_wait_idle = nullptr;
  PFN_vkDeviceWaitIdle device_wait_idle = nullptr;
  PFN_vkWaitForFences wait_for_fences = nullptr;
  PFN_vkGetFenceStatus get_fence_status = nullptr;
  PFN_vkMapMemory map_memory = nullptr;
  PFN_vkWaitSemaphores wait_semaphores = nullptr;
  PFN_vkGetSemaphoreCounterValue get_semaphore_counter_value = nullptr;
  bool lost = false;  // set once a device-lost fault fired; later calls report VK_ERROR_DEVICE_LOST
};

// What an entry point must do instead of (or after) calling down.
struct Injection {
  std::size_t fault_index = 0;
  FaultAction action = FaultAction::error;
  int32_t vk_result = 0;
};

class LayerState {
 public:
  // (Re)reads PARITY_CHAOS_FAULTS when its value differs from the one in force, resetting the
  // counters; called at each vkCreateInstance so one process can try several fault lists.
  void load_faults_from_env();

  void add_instance(DispatchKey key, InstanceTable table);
  std::optional<InstanceTable> instance(DispatchKey key);
  void remove_instance(DispatchKey key);

  void add_device(DispatchKey key, DeviceTable table);
  std::optional<DeviceTable> device(DispatchKey key);
  void remove_device(DispatchKey key);
  void mark_device_lost(DispatchKey key);

  // Counts one call of `call` and says whether a fault fires on it (the first listed wins).
  // Logs the injection to stderr in one line: the parent names the fault from it.
  std::optional<Injection> on_call(const char* call);

  // Capability masking, applied in place; each mask logs once per process the first time it
  // changes a value.
  void mask_limits(VkPhysicalDeviceLimits& limits);
  void mask_memory(VkPhysicalDeviceMemoryProperties& memory);
  void mask_features(VkPhysicalDeviceFeatures& features);
  void mask_feature_chain(void* next);  // pNext chain of VkPhysicalDeviceFeatures2

 private:
  // Applies mask `name` to `value` (a limit in force), logging the first change.
  template <typename T>
  void clamp(const char* name, T& value, const char* query);

  std::mutex mutex_;
  std::string env_value_;
  bool env_loaded_ = false;
  std::vector<FaultSpec> faults_;
  std::vector<uint64_t> calls_seen_;  // per fault: calls of its entry point so far
  std::vector<bool> mask_logged_;     // per fault: its first effect has been logged
  std::unordered_map<DispatchKey, InstanceTable> instances_;
  std::unordered_map<DispatchKey, DeviceTable> devices_;
};

// The process's one LayerState (constructed on first use, never destroyed: the loader may call
// into the layer from atexit handlers of other libraries).
LayerState& state();

}  // namespace parity::chaos::layer
