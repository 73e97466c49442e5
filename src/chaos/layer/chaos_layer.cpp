// chaos/layer/chaos_layer.cpp: VK_LAYER_PARITY_chaos entry points.
//
// Everything not named here goes straight to the next layer or driver (our GetProcAddr returns
// the next one's pointer), so the layer costs nothing on calls it does not fault. Intercepted
// calls look up the next pointers by dispatch key, ask LayerState whether a fault fires, and
// either answer for the driver or call down.
#include <cstring>

#include "chaos/layer/layer_state.h"

namespace parity::chaos::layer {

// The GetProcAddr pair handed to the loader; defined last because they look up every intercept.
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_instance_proc_addr_entry(VkInstance instance, const char* name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr_entry(VkDevice device, const char* name);

namespace {

template <typename Info>
Info* find_link_info(const void* next, VkStructureType type) {
  for (auto* s = static_cast<const VkBaseInStructure*>(next); s != nullptr; s = s->pNext) {
    auto* info = reinterpret_cast<Info*>(const_cast<VkBaseInStructure*>(s));
    if (s->sType == type && info->function == VK_LAYER_LINK_INFO) return info;
  }
  return nullptr;
}

// ---- instance level -------------------------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo* info,
                                               const VkAllocationCallbacks* alloc, VkInstance* out) {
  auto* link =
      find_link_info<VkLayerInstanceCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  LayerState& s = state();
  s.load_faults_from_env();
  if (auto hit = s.on_call("vkCreateInstance")) return static_cast<VkResult>(hit->vk_result);

  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  auto next_create = reinterpret_cast<PFN_vkCreateInstance>(next_gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  if (next_create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer finds its own link
  const VkResult r = next_create(info, alloc, out);
  if (r != VK_SUCCESS) return r;

  InstanceTable t;
  t.instance = *out;
  t.get_instance_proc_addr = next_gipa;
  auto get = [&](const char* name) { return next_gipa(*out, name); };
  t.destroy_instance = reinterpret_cast<PFN_vkDestroyInstance>(get("vkDestroyInstance"));
  t.get_properties =
      reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(get("vkGetPhysicalDeviceProperties"));
  t.get_properties2 =
      reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(get("vkGetPhysicalDeviceProperties2"));
  t.get_properties2_khr =
      reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(get("vkGetPhysicalDeviceProperties2KHR"));
  t.get_features = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures>(get("vkGetPhysicalDeviceFeatures"));
  t.get_features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(get("vkGetPhysicalDeviceFeatures2"));
  t.get_features2_khr =
      reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(get("vkGetPhysicalDeviceFeatures2KHR"));
  t.get_memory =
      reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties>(get("vkGetPhysicalDeviceMemoryProperties"));
  t.get_memory2 =
      reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties2>(get("vkGetPhysicalDeviceMemoryProperties2"));
  t.get_memory2_khr = reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties2>(
      get("vkGetPhysicalDeviceMemoryProperties2KHR"));
  s.add_instance(dispatch_key(*out), t);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL destroy_instance(VkInstance instance, const VkAllocationCallbacks* alloc) {
  if (instance == VK_NULL_HANDLE) return;
  auto t = state().instance(dispatch_key(instance));
  state().remove_instance(dispatch_key(instance));
  if (t && t->destroy_instance) t->destroy_instance(instance, alloc);
}

VKAPI_ATTR void VKAPI_CALL get_properties(VkPhysicalDevice pd, VkPhysicalDeviceProperties* p) {
  auto t = state().instance(dispatch_key(pd));
  if (!t || !t->get_properties) return;
  t->get_properties(pd, p);
  state().mask_limits(p->limits);
}

void properties2_via(PFN_vkGetPhysicalDeviceProperties2 next, VkPhysicalDevice pd,
                     VkPhysicalDeviceProperties2* p) {
  if (next == nullptr) return;
  next(pd, p);
  state().mask_limits(p->properties.limits);
}

VKAPI_ATTR void VKAPI_CALL get_properties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* p) {
  auto t = state().instance(dispatch_key(pd));
  if (t) properties2_via(t->get_properties2 ? t->get_properties2 : t->get_properties2_khr, pd, p);
}

VKAPI_ATTR void VKAPI_CALL get_properties2_khr(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* p) {
  auto t = state().instance(dispatch_key(pd));
  if (t) properties2_via(t->get_properties2_khr ? t->get_properties2_khr : t->get_properties2, pd, p);
}

VKAPI_ATTR void VKAPI_CALL get_features(VkPhysicalDevice pd, VkPhysicalDeviceFeatures* f) {
  auto t = state().instance(dispatch_key(pd));
  if (!t || !t->get_features) return;
  t->get_features(pd, f);
  state().mask_features(*f);
}

void features2_via(PFN_vkGetPhysicalDeviceFeatures2 next, VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  if (next == nullptr) return;
  next(pd, f);
  state().mask_features(f->features);
  state().mask_feature_chain(f->pNext);
}

VKAPI_ATTR void VKAPI_CALL get_features2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  auto t = state().instance(dispatch_key(pd));
  if (t) features2_via(t->get_features2 ? t->get_features2 : t->get_features2_khr, pd, f);
}

VKAPI_ATTR void VKAPI_CALL get_features2_khr(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
  auto t = state().instance(dispatch_key(pd));
  if (t) features2_via(t->get_features2_khr ? t->get_features2_khr : t->get_features2, pd, f);
}

VKAPI_ATTR void VKAPI_CALL get_memory(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties* m) {
  auto t = state().instance(dispatch_key(pd));
  if (!t || !t->get_memory) return;
  t->get_memory(pd, m);
  state().mask_memory(*m);
}

void memory2_via(PFN_vkGetPhysicalDeviceMemoryProperties2 next, VkPhysicalDevice pd,
                 VkPhysicalDeviceMemoryProperties2* m) {
  if (next == nullptr) return;
  next(pd, m);
  state().mask_memory(m->memoryProperties);
}

VKAPI_ATTR void VKAPI_CALL get_memory2(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties2* m) {
  auto t = state().instance(dispatch_key(pd));
  if (t) memory2_via(t->get_memory2 ? t->get_memory2 : t->get_memory2_khr, pd, m);
}

VKAPI_ATTR void VKAPI_CALL get_memory2_khr(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties2* m) {
  auto t = state().instance(dispatch_key(pd));
  if (t) memory2_via(t->get_memory2_khr ? t->get_memory2_khr : t->get_memory2, pd, m);
}

VKAPI_ATTR VkResult VKAPI_CALL create_device(VkPhysicalDevice pd, const VkDeviceCreateInfo* info,
                                             const VkAllocationCallbacks* alloc, VkDevice* out) {
  auto* link =
      find_link_info<VkLayerDeviceCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  LayerState& s = state();
  if (auto hit = s.on_call("vkCreateDevice")) return static_cast<VkResult>(hit->vk_result);

  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  auto instance = s.instance(dispatch_key(pd));
  auto next_create = reinterpret_cast<PFN_vkCreateDevice>(
      next_gipa(instance ? instance->instance : VK_NULL_HANDLE, "vkCreateDevice"));
  if (next_create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  const VkResult r = next_create(pd, info, alloc, out);
  if (r != VK_SUCCESS) return r;

  DeviceTable t;
  t.device = *out;
  t.get_device_proc_addr = next_gdpa;
  auto get = [&](const char* name) { return next_gdpa(*out, name); };
  t.destroy_device = reinterpret_cast<PFN_vkDestroyDevice>(get("vkDestroyDevice"));
  t.create_shader_module = reinterpret_cast<PFN_vkCreateShaderModule>(get("vkCreateShaderModule"));
  t.create_compute_pipelines =
      reinterpret_cast<PFN_vkCreateComputePipelines>(get("vkCreateComputePipelines"));
  t.create_pipeline_layout = reinterpret_cast<PFN_vkCreatePipelineLayout>(get("vkCreatePipelineLayout"));
  t.create_descriptor_set_layout =
      reinterpret_cast<PFN_vkCreateDescriptorSetLayout>(get("vkCreateDescriptorSetLayout"));
  t.allocate_memory = reinterpret_cast<PFN_vkAllocateMemory>(get("vkAllocateMemory"));
  t.create_buffer = reinterpret_cast<PFN_vkCreateBuffer>(get("vkCreateBuffer"));
  t.queue_submit = reinterpret_cast<PFN_vkQueueSubmit>(get("vkQueueSubmit"));
  t.queue_wait_idle = reinterpret_cast<PFN_vkQueueWaitIdle>(get("vkQueueWaitIdle"));
  t.device_wait_idle = reinterpret_cast<PFN_vkDeviceWaitIdle>(get("vkDeviceWaitIdle"));
  t.wait_for_fences = reinterpret_cast<PFN_vkWaitForFences>(get("vkWaitForFences"));
  t.get_fence_status = reinterpret_cast<PFN_vkGetFenceStatus>(get("vkGetFenceStatus"));
  t.map_memory = reinterpret_cast<PFN_vkMapMemory>(get("vkMapMemory"));
  t.wait_semaphores = reinterpret_cast<PFN_vkWaitSemaphores>(get("vkWaitSemaphores"));
  if (t.wait_semaphores == nullptr)
    t.wait_semaphores = reinterpret_cast<PFN_vkWaitSemaphores>(get("vkWaitSemaphoresKHR"));
  t.get_semaphore_counter_value =
      reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(get("vkGetSemaphoreCounterValue"));
  if (t.get_semaphore_counter_value == nullptr)
    t.get_semaphore_counter_value =
        reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(get("vkGetSemaphoreCounterValueKHR"));
  s.add_device(dispatch_key(*out), t);
  return VK_SUCCESS;
}

// ---- device level ---------------------------------------------------------------------------

VKAPI_ATTR void VKAPI_CALL destroy_device(VkDevice device, const VkAllocationCallbacks* alloc) {
  if (device == VK_NULL_HANDLE) return;
  auto t = state().device(dispatch_key(device));
  state().remove_device(dispatch_key(device));
  if (t && t->destroy_device) t->destroy_device(device, alloc);
}

// Shared shape of the resource-creation faults: an error result, or success with a null handle,
// or a call down to the driver. A lost device fails every creation, as real drivers do.
template <typename Handle, typename Call>
VkResult create_with_faults(VkDevice device, const char* name, Handle* out, uint32_t count,
                            Call&& call_down) {
  auto t = state().device(dispatch_key(device));
  if (!t) return VK_ERROR_INITIALIZATION_FAILED;
  if (t->lost) return VK_ERROR_DEVICE_LOST;
  if (auto hit = state().on_call(name)) {
    if (hit->action != FaultAction::null_handle) return static_cast<VkResult>(hit->vk_result);
    for (uint32_t i = 0; i < count; ++i) out[i] = VK_NULL_HANDLE;
    return VK_SUCCESS;
  }
  return call_down(*t);
}

VKAPI_ATTR VkResult VKAPI_CALL create_shader_module(VkDevice d, const VkShaderModuleCreateInfo* i,
                                                    const VkAllocationCallbacks* a, VkShaderModule* o) {
  return create_with_faults(d, "vkCreateShaderModule", o, 1,
                            [&](const DeviceTable& t) { return t.create_shader_module(d, i, a, o); });
}

VKAPI_ATTR VkResult VKAPI_CALL create_compute_pipelines(VkDevice d, VkPipelineCache c, uint32_t n,
                                                        const VkComputePipelineCreateInfo* i,
                                                        const VkAllocationCallbacks* a, VkPipeline* o) {
  return create_with_faults(d, "vkCreateComputePipelines", o, n, [&](const DeviceTable& t) {
    return t.create_compute_pipelines(d, c, n, i, a, o);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL create_pipeline_layout(VkDevice d, const VkPipelineLayoutCreateInfo* i,
                                                      const VkAllocationCallbacks* a, VkPipelineLayout* o) {
  return create_with_faults(d, "vkCreatePipelineLayout", o, 1,
                            [&](const DeviceTable& t) { return t.create_pipeline_layout(d, i, a, o); });
}

VKAPI_ATTR VkResult VKAPI_CALL create_descriptor_set_layout(VkDevice d,
                                                            const VkDescriptorSetLayoutCreateInfo* i,
                                                            const VkAllocationCallbacks* a,
                                                            VkDescriptorSetLayout* o) {
  return create_with_faults(d, "vkCreateDescriptorSetLayout", o, 1,
                            [&](const DeviceTable& t) { return t.create_descriptor_set_layout(d, i, a, o); });
}

VKAPI_ATTR VkResult VKAPI_CALL allocate_memory(VkDevice d, const VkMemoryAllocateInfo* i,
                                               const VkAllocationCallbacks* a, VkDeviceMemory* o) {
  return create_with_faults(d, "vkAllocateMemory", o, 1,
                            [&](const DeviceTable& t) { return t.allocate_memory(d, i, a, o); });
}

VKAPI_ATTR VkResult VKAPI_CALL create_buffer(VkDevice d, const VkBufferCreateInfo* i,
                                             const VkAllocationCallbacks* a, VkBuffer* o) {
  return create_with_faults(d, "vkCreateBuffer", o, 1,
                            [&](const DeviceTable& t) { return t.create_buffer(d, i, a, o); });
}

VKAPI_ATTR VkResult VKAPI_CALL queue_submit(VkQueue q, uint32_t n, const VkSubmitInfo* s, VkFence f) {
  const DispatchKey key = dispatch_key(q);
  auto t = state().device(key);
  if (!t) return VK_ERROR_INITIALIZATION_FAILED;
  if (t->lost) return VK_ERROR_DEVICE_LOST;
  if (auto hit = state().on_call("vkQueueSubmit")) {
    if (hit->action == FaultAction::device_lost) state().mark_device_lost(key);
    return static_cast<VkResult>(hit->vk_result);
  }
  return t->queue_submit(q, n, s, f);
}

// Waits and polls after a loss report the loss instead of waiting for work that never ran.
VKAPI_ATTR VkResult VKAPI_CALL queue_wait_idle(VkQueue q) {
  auto t = state().device(dispatch_key(q));
  if (!t) return VK_ERROR_INITIALIZATION_FAILED;
  return t->lost ? VK_ERROR_DEVICE_LOST : t->queue_wait_idle(q);
}

VKAPI_ATTR VkResult VKAPI_CALL device_wait_idle(VkDevice d) {
  auto t = state().device(dispatch_key(d));
  if (!t) return VK_ERROR_INITIALIZATION_FAILED;
  return t->lost ? VK_ERROR_DEVICE_LOST : t->device_wait_idle(d);
}

VKAPI_ATTR VkResult VKAPI_CALL wait_for_fences(VkDevice d, uint32_t n, const VkFence* f, VkBool32 all,
                                               uint64_t timeout) {
  auto t = state().device(dispatch_key(d));
  if (!t) return VK_ERROR_INITIALIZATION_FAILED;
  return t->lost ? VK_ERROR_DEVICE_LOST : t->wait_for_fences(d, n, f, all, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL get_fence_status(VkDevice d, VkFence f) {
  auto t = state().device(dispatch_key(d));
  if (!t) return VK_ERROR_INITIALIZATION_FAILED;
  return t->lost ? VK_ERROR_DEVICE_LOST : t->get_fence_status(d, f);
}

VKAPI_ATTR VkResult VKAPI_CALL map_memory(VkDevice d, VkDeviceMemory m, VkDeviceSize off, VkDeviceSize size,
                                          VkMemoryMapFlags flags, void** data) {
  auto t = state().device(dispatch_key(d));
  if (!t) return VK_ERROR_INITIALIZATION_FAILED;
  return t->lost ? VK_ERROR_DEVICE_LOST : t->map_memory(d, m, off, size, flags, data);
}

VKAPI_ATTR VkResult VKAPI_CALL wait_semaphores(VkDevice d, const VkSemaphoreWaitInfo* i, uint64_t timeout) {
  auto t = state().device(dispatch_key(d));
  if (!t || !t->wait_semaphores) return VK_ERROR_INITIALIZATION_FAILED;
  return t->lost ? VK_ERROR_DEVICE_LOST : t->wait_semaphores(d, i, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL get_semaphore_counter_value(VkDevice d, VkSemaphore s, uint64_t* v) {
  auto t = state().device(dispatch_key(d));
  if (!t || !t->get_semaphore_counter_value) return VK_ERROR_INITIALIZATION_FAILED;
  return t->lost ? VK_ERROR_DEVICE_LOST : t->get_semaphore_counter_value(d, s, v);
}

// ---- proc addr ------------------------------------------------------------------------------

struct Intercept {
  const char* name;
  PFN_vkVoidFunction fn;
};

#define PARITY_INTERCEPT(name, fn) \
  Intercept { name, reinterpret_cast<PFN_vkVoidFunction>(&fn) }

const Intercept kDeviceIntercepts[] = {
    PARITY_INTERCEPT("vkGetDeviceProcAddr", get_device_proc_addr_entry),
    PARITY_INTERCEPT("vkDestroyDevice", destroy_device),
    PARITY_INTERCEPT("vkCreateShaderModule", create_shader_module),
    PARITY_INTERCEPT("vkCreateComputePipelines", create_compute_pipelines),
    PARITY_INTERCEPT("vkCreatePipelineLayout", create_pipeline_layout),
    PARITY_INTERCEPT("vkCreateDescriptorSetLayout", create_descriptor_set_layout),
    PARITY_INTERCEPT("vkAllocateMemory", allocate_memory),
    PARITY_INTERCEPT("vkCreateBuffer", create_buffer),
    PARITY_INTERCEPT("vkQueueSubmit", queue_submit),
    PARITY_INTERCEPT("vkQueueWaitIdle", queue_wait_idle),
    PARITY_INTERCEPT("vkDeviceWaitIdle", device_wait_idle),
    PARITY_INTERCEPT("vkWaitForFences", wait_for_fences),
    PARITY_INTERCEPT("vkGetFenceStatus", get_fence_status),
    PARITY_INTERCEPT("vkMapMemory", map_memory),
    PARITY_INTERCEPT("vkWaitSemaphores", wait_semaphores),
    PARITY_INTERCEPT("vkWaitSemaphoresKHR", wait_semaphores),
    PARITY_INTERCEPT("vkGetSemaphoreCounterValue", get_semaphore_counter_value),
    PARITY_INTERCEPT("vkGetSemaphoreCounterValueKHR", get_semaphore_counter_value),
};

const Intercept kInstanceIntercepts[] = {
    PARITY_INTERCEPT("vkGetInstanceProcAddr", get_instance_proc_addr_entry),
    PARITY_INTERCEPT("vkCreateInstance", create_instance),
    PARITY_INTERCEPT("vkDestroyInstance", destroy_instance),
    PARITY_INTERCEPT("vkCreateDevice", create_device),
    PARITY_INTERCEPT("vkGetPhysicalDeviceProperties", get_properties),
    PARITY_INTERCEPT("vkGetPhysicalDeviceProperties2", get_properties2),
    PARITY_INTERCEPT("vkGetPhysicalDeviceProperties2KHR", get_properties2_khr),
    PARITY_INTERCEPT("vkGetPhysicalDeviceFeatures", get_features),
    PARITY_INTERCEPT("vkGetPhysicalDeviceFeatures2", get_features2),
    PARITY_INTERCEPT("vkGetPhysicalDeviceFeatures2KHR", get_features2_khr),
    PARITY_INTERCEPT("vkGetPhysicalDeviceMemoryProperties", get_memory),
    PARITY_INTERCEPT("vkGetPhysicalDeviceMemoryProperties2", get_memory2),
    PARITY_INTERCEPT("vkGetPhysicalDeviceMemoryProperties2KHR", get_memory2_khr),
};

#undef PARITY_INTERCEPT

template <std::size_t N>
PFN_vkVoidFunction find_intercept(const Intercept (&table)[N], const char* name) {
  for (const auto& i : table)
    if (std::strcmp(i.name, name) == 0) return i.fn;
  return nullptr;
}

}  // namespace

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr_entry(VkDevice device, const char* name) {
  if (name == nullptr || device == VK_NULL_HANDLE) return nullptr;
  auto t = state().device(dispatch_key(device));
  if (!t) return nullptr;
  // Only claim a call the next link has: an extension the driver lacks must stay absent.
  PFN_vkVoidFunction next = t->get_device_proc_addr(device, name);
  if (PFN_vkVoidFunction ours = find_intercept(kDeviceIntercepts, name); ours && next) return ours;
  return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_instance_proc_addr_entry(VkInstance instance, const char* name) {
  if (name == nullptr) return nullptr;
  if (std::strcmp(name, "vkCreateInstance") == 0 || std::strcmp(name, "vkGetInstanceProcAddr") == 0)
    return find_intercept(kInstanceIntercepts, name);
  if (instance == VK_NULL_HANDLE) return nullptr;
  auto t = state().instance(dispatch_key(instance));
  if (!t) return nullptr;
  PFN_vkVoidFunction next = t->get_instance_proc_addr(instance, name);
  if (PFN_vkVoidFunction ours = find_intercept(kInstanceIntercepts, name); ours && next) return ours;
  if (PFN_vkVoidFunction ours = find_intercept(kDeviceIntercepts, name); ours && next) return ours;
  return next;
}

}  // namespace parity::chaos::layer

// The one symbol the loader looks up (layer interface version 2): it hands the loader our
// GetProcAddr pair, so nothing else needs to be exported.
extern "C" VK_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
  if (version == nullptr || version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
    return VK_ERROR_INITIALIZATION_FAILED;
  if (version->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
  version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = &parity::chaos::layer::get_instance_proc_addr_entry;
  version->pfnGetDeviceProcAddr = &parity::chaos::layer::get_device_proc_addr_entry;
  version->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}
