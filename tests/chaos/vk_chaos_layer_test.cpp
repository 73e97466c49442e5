// Loads VK_LAYER_PARITY_chaos over SwiftShader through the real Vulkan loader and checks that it
// passes calls through and that each fault class does exactly what its spec says.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>

#include "backend/vulkan_adapter.h"
#include "chaos/chaos_runner.h"
#include "support/requirements.h"

namespace parity::chaos {
namespace {

// An empty GLSL450 compute shader ("main", local size 1x1x1), hand-assembled SPIR-V 1.0.
const uint32_t kEmptyComputeSpirv[] = {
    0x07230203, 0x00010000, 0,  5,          0,     // header, bound 5
    0x00020011, 1,                                 // OpCapability Shader
    0x0003000E, 0,          1,                     // OpMemoryModel Logical GLSL450
    0x0005000F, 5,          1,  0x6E69616D, 0,     // OpEntryPoint GLCompute %1 "main"
    0x00060010, 1,          17, 1,          1, 1,  // OpExecutionMode %1 LocalSize 1 1 1
    0x00020013, 2,                                 // %2 = OpTypeVoid
    0x00030021, 3,          2,                     // %3 = OpTypeFunction %2
    0x00050036, 2,          1,  0,          3,     // %1 = OpFunction %2 None %3
    0x000200F8, 4,                                 // %4 = OpLabel
    0x000100FD,                                    // OpReturn
    0x00010038,                                    // OpFunctionEnd
};

PFN_vkGetInstanceProcAddr loader_entry() {
  static PFN_vkGetInstanceProcAddr entry = [] {
    void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr")) : nullptr;
  }();
  return entry;
}

// Points the loader at SwiftShader and our layer, with `faults` for the layer. Environment is
// process-wide, so every test sets all of it.
void use_layer(const std::string& faults) {
  auto layer = find_layer("");
  ASSERT_TRUE(layer.ok()) << layer.error().message;
  for (const auto& [k, v] : layer_env(*layer, faults)) setenv(k.c_str(), v.c_str(), 1);
  const std::string icd(backend::kSwiftShaderIcd);
  setenv("VK_ICD_FILENAMES", icd.c_str(), 1);
  setenv("VK_DRIVER_FILES", icd.c_str(), 1);
}

// One instance + device + compute queue, destroyed in order.
class VulkanRig {
 public:
  VkResult create_instance() {
    gipa_ = loader_entry();
    auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa_(VK_NULL_HANDLE, "vkCreateInstance"));
    VkApplicationInfo app{
        VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "chaos-test", 1, nullptr, 0, VK_API_VERSION_1_2};
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    return create(&info, nullptr, &instance_);
  }

  VkResult create_device() {
    uint32_t n = 1;
    auto enumerate = load<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices");
    VkResult r = enumerate(instance_, &n, &physical_);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return r;
    const float priority = 1;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, 0, 1, &priority};
    VkDeviceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &q;
    r = load<PFN_vkCreateDevice>("vkCreateDevice")(physical_, &info, nullptr, &device_);
    if (r == VK_SUCCESS) {
      gdpa_ = load<PFN_vkGetDeviceProcAddr>("vkGetDeviceProcAddr");
      dev<PFN_vkGetDeviceQueue>("vkGetDeviceQueue")(device_, 0, 0, &queue_);
    }
    return r;
  }

  ~VulkanRig() {
    if (device_ != VK_NULL_HANDLE) dev<PFN_vkDestroyDevice>("vkDestroyDevice")(device_, nullptr);
    if (instance_ != VK_NULL_HANDLE) load<PFN_vkDestroyInstance>("vkDestroyInstance")(instance_, nullptr);
  }

  template <typename Fn>
  Fn load(const char* name) {
    return reinterpret_cast<Fn>(gipa_(instance_, name));
  }
  template <typename Fn>
  Fn dev(const char* name) {
    return reinterpret_cast<Fn>(gdpa_(device_, name));
  }

  VkResult create_buffer(VkBuffer* out) {
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = 256;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    *out = reinterpret_cast<VkBuffer>(uintptr_t{0xdead});  // a fault must overwrite it
    const VkResult r = dev<PFN_vkCreateBuffer>("vkCreateBuffer")(device_, &info, nullptr, out);
    if (r == VK_SUCCESS && *out != VK_NULL_HANDLE)
      dev<PFN_vkDestroyBuffer>("vkDestroyBuffer")(device_, *out, nullptr);
    return r;
  }

  VkResult submit_empty() {
    return dev<PFN_vkQueueSubmit>("vkQueueSubmit")(queue_, 0, nullptr, VK_NULL_HANDLE);
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  PFN_vkGetInstanceProcAddr gipa_ = nullptr;
  PFN_vkGetDeviceProcAddr gdpa_ = nullptr;
};

class VkChaosLayerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PARITY_REQUIRE("webgpu-adapter");
    PARITY_REQUIRE("vulkan-loader");
  }
  // The environment is process-wide: leave none of it to tests that spawn parity.
  void TearDown() override {
    for (const char* name : {"VK_ADD_LAYER_PATH", "VK_INSTANCE_LAYERS", "PARITY_CHAOS_FAULTS",
                             "VK_ICD_FILENAMES", "VK_DRIVER_FILES"})
      unsetenv(name);
  }
};

TEST_F(VkChaosLayerTest, PassesEverythingThroughWithoutFaults) {
  use_layer("");
  VulkanRig rig;
  ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
  ASSERT_EQ(rig.create_device(), VK_SUCCESS);
  VkBuffer buffer;
  EXPECT_EQ(rig.create_buffer(&buffer), VK_SUCCESS);
  EXPECT_NE(buffer, VK_NULL_HANDLE);

  VkShaderModuleCreateInfo sm{};
  sm.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  sm.codeSize = sizeof kEmptyComputeSpirv;
  sm.pCode = kEmptyComputeSpirv;
  VkShaderModule module = VK_NULL_HANDLE;
  ASSERT_EQ(rig.dev<PFN_vkCreateShaderModule>("vkCreateShaderModule")(rig.device_, &sm, nullptr, &module),
            VK_SUCCESS);
  VkPipelineLayoutCreateInfo pl{};
  pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  ASSERT_EQ(rig.dev<PFN_vkCreatePipelineLayout>("vkCreatePipelineLayout")(rig.device_, &pl, nullptr, &layout),
            VK_SUCCESS);
  VkComputePipelineCreateInfo cp{};
  cp.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cp.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cp.stage.module = module;
  cp.stage.pName = "main";
  cp.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  EXPECT_EQ(rig.dev<PFN_vkCreateComputePipelines>("vkCreateComputePipelines")(rig.device_, VK_NULL_HANDLE, 1,
                                                                              &cp, nullptr, &pipeline),
            VK_SUCCESS);
  EXPECT_NE(pipeline, VK_NULL_HANDLE);
  rig.dev<PFN_vkDestroyPipeline>("vkDestroyPipeline")(rig.device_, pipeline, nullptr);
  rig.dev<PFN_vkDestroyPipelineLayout>("vkDestroyPipelineLayout")(rig.device_, layout, nullptr);
  rig.dev<PFN_vkDestroyShaderModule>("vkDestroyShaderModule")(rig.device_, module, nullptr);
  EXPECT_EQ(rig.submit_empty(), VK_SUCCESS);
  EXPECT_EQ(rig.dev<PFN_vkQueueWaitIdle>("vkQueueWaitIdle")(rig.queue_), VK_SUCCESS);
}

TEST_F(VkChaosLayerTest, ErrorFaultReturnsTheCodeAndLogsOneLine) {
  use_layer("vkCreateShaderModule:error=VK_ERROR_OUT_OF_DEVICE_MEMORY");
  VulkanRig rig;
  ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
  ASSERT_EQ(rig.create_device(), VK_SUCCESS);
  VkShaderModuleCreateInfo sm{};
  sm.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  sm.codeSize = sizeof kEmptyComputeSpirv;
  sm.pCode = kEmptyComputeSpirv;
  VkShaderModule module = VK_NULL_HANDLE;
  ::testing::internal::CaptureStderr();
  const VkResult r =
      rig.dev<PFN_vkCreateShaderModule>("vkCreateShaderModule")(rig.device_, &sm, nullptr, &module);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r, VK_ERROR_OUT_OF_DEVICE_MEMORY);
  const auto lines = injection_lines(log);
  ASSERT_EQ(lines.size(), 1u) << log;
  EXPECT_NE(lines[0].find("call=vkCreateShaderModule"), std::string::npos);
  EXPECT_NE(lines[0].find("occurrence=1 result=VK_ERROR_OUT_OF_DEVICE_MEMORY"), std::string::npos);
}

TEST_F(VkChaosLayerTest, NullFaultReportsSuccessWithNullHandles) {
  use_layer("vkCreatePipelineLayout:null;vkCreateDescriptorSetLayout:null;vkAllocateMemory:null");
  VulkanRig rig;
  ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
  ASSERT_EQ(rig.create_device(), VK_SUCCESS);
  VkPipelineLayoutCreateInfo pl{};
  pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  auto layout = reinterpret_cast<VkPipelineLayout>(uintptr_t{0xdead});
  EXPECT_EQ(rig.dev<PFN_vkCreatePipelineLayout>("vkCreatePipelineLayout")(rig.device_, &pl, nullptr, &layout),
            VK_SUCCESS);
  EXPECT_EQ(layout, VK_NULL_HANDLE);
  VkDescriptorSetLayoutCreateInfo dl{};
  dl.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  auto set_layout = reinterpret_cast<VkDescriptorSetLayout>(uintptr_t{0xdead});
  EXPECT_EQ(rig.dev<PFN_vkCreateDescriptorSetLayout>("vkCreateDescriptorSetLayout")(rig.device_, &dl, nullptr,
                                                                                    &set_layout),
            VK_SUCCESS);
  EXPECT_EQ(set_layout, VK_NULL_HANDLE);
  VkMemoryAllocateInfo ma{};
  ma.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ma.allocationSize = 4096;
  auto memory = reinterpret_cast<VkDeviceMemory>(uintptr_t{0xdead});
  EXPECT_EQ(rig.dev<PFN_vkAllocateMemory>("vkAllocateMemory")(rig.device_, &ma, nullptr, &memory),
            VK_SUCCESS);
  EXPECT_EQ(memory, VK_NULL_HANDLE);
}

TEST_F(VkChaosLayerTest, NullComputePipelinesAndNthTrigger) {
  use_layer("vkCreateComputePipelines:null;vkCreateBuffer:error@nth=2");
  VulkanRig rig;
  ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
  ASSERT_EQ(rig.create_device(), VK_SUCCESS);
  VkComputePipelineCreateInfo cp[2]{};
  VkPipeline pipelines[2] = {reinterpret_cast<VkPipeline>(uintptr_t{1}),
                             reinterpret_cast<VkPipeline>(uintptr_t{2})};
  EXPECT_EQ(rig.dev<PFN_vkCreateComputePipelines>("vkCreateComputePipelines")(rig.device_, VK_NULL_HANDLE, 2,
                                                                              cp, nullptr, pipelines),
            VK_SUCCESS);
  EXPECT_EQ(pipelines[0], VK_NULL_HANDLE);
  EXPECT_EQ(pipelines[1], VK_NULL_HANDLE);
  VkBuffer b;
  EXPECT_EQ(rig.create_buffer(&b), VK_SUCCESS);
  EXPECT_EQ(rig.create_buffer(&b), VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(rig.create_buffer(&b), VK_SUCCESS);
}

TEST_F(VkChaosLayerTest, DeviceLostAfterSubmitsStaysLost) {
  use_layer("vkQueueSubmit:device-lost@nth=3");
  VulkanRig rig;
  ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
  ASSERT_EQ(rig.create_device(), VK_SUCCESS);
  EXPECT_EQ(rig.submit_empty(), VK_SUCCESS);
  EXPECT_EQ(rig.submit_empty(), VK_SUCCESS);
  EXPECT_EQ(rig.submit_empty(), VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(rig.submit_empty(), VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(rig.dev<PFN_vkQueueWaitIdle>("vkQueueWaitIdle")(rig.queue_), VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(rig.dev<PFN_vkDeviceWaitIdle>("vkDeviceWaitIdle")(rig.device_), VK_ERROR_DEVICE_LOST);
  VkBuffer b;
  EXPECT_EQ(rig.create_buffer(&b), VK_ERROR_DEVICE_LOST);
}

TEST_F(VkChaosLayerTest, CreateInstanceAndDeviceErrors) {
  {
    use_layer("vkCreateDevice:error=VK_ERROR_INITIALIZATION_FAILED");
    VulkanRig rig;
    ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
    EXPECT_EQ(rig.create_device(), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(rig.device_, VK_NULL_HANDLE);
  }
  use_layer("vkCreateInstance:error=VK_ERROR_OUT_OF_HOST_MEMORY");
  VulkanRig rig;
  EXPECT_EQ(rig.create_instance(), VK_ERROR_OUT_OF_HOST_MEMORY);
}

TEST_F(VkChaosLayerTest, MasksShrinkLimitsHeapsAndHideFeatures) {
  use_layer("");
  VkPhysicalDeviceProperties full{};
  VkPhysicalDeviceMemoryProperties full_memory{};
  {
    VulkanRig rig;
    ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
    ASSERT_EQ(rig.create_device(), VK_SUCCESS);
    rig.load<PFN_vkGetPhysicalDeviceProperties>("vkGetPhysicalDeviceProperties")(rig.physical_, &full);
    rig.load<PFN_vkGetPhysicalDeviceMemoryProperties>("vkGetPhysicalDeviceMemoryProperties")(rig.physical_,
                                                                                             &full_memory);
  }
  ASSERT_GT(full.limits.maxStorageBufferRange, 65536u);
  ASSERT_GT(full.limits.maxComputeWorkGroupInvocations, 64u);
  use_layer(
      "mask:maxStorageBufferRange=64K;mask:maxComputeSharedMemorySize=4K;mask:maxComputeWorkGroupInvocations="
      "64;"
      "mask:heapSize=64M;mask:robustBufferAccess=0;mask:shaderInt8=0");
  VulkanRig rig;
  ASSERT_EQ(rig.create_instance(), VK_SUCCESS);
  ASSERT_EQ(rig.create_device(), VK_SUCCESS);
  VkPhysicalDeviceProperties2 p2{};
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  rig.load<PFN_vkGetPhysicalDeviceProperties2>("vkGetPhysicalDeviceProperties2")(rig.physical_, &p2);
  EXPECT_EQ(p2.properties.limits.maxStorageBufferRange, 65536u);
  EXPECT_EQ(p2.properties.limits.maxComputeSharedMemorySize, 4096u);
  EXPECT_EQ(p2.properties.limits.maxComputeWorkGroupInvocations, 64u);
  EXPECT_EQ(p2.properties.limits.maxUniformBufferRange, full.limits.maxUniformBufferRange);  // untouched
  VkPhysicalDeviceMemoryProperties memory{};
  rig.load<PFN_vkGetPhysicalDeviceMemoryProperties>("vkGetPhysicalDeviceMemoryProperties")(rig.physical_,
                                                                                           &memory);
  ASSERT_EQ(memory.memoryHeapCount, full_memory.memoryHeapCount);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) EXPECT_LE(memory.memoryHeaps[i].size, 64ull << 20);
  VkPhysicalDeviceShaderFloat16Int8Features f16{};
  f16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDeviceFeatures2 f2{};
  f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  f2.pNext = &f16;
  rig.load<PFN_vkGetPhysicalDeviceFeatures2>("vkGetPhysicalDeviceFeatures2")(rig.physical_, &f2);
  EXPECT_EQ(f2.features.robustBufferAccess, VK_FALSE);
  EXPECT_EQ(f16.shaderInt8, VK_FALSE);
}

TEST_F(VkChaosLayerTest, ProbabilityTriggerReplaysFromItsSeed) {
  auto pattern = [](const std::string& spec) {
    use_layer(spec);
    VulkanRig rig;
    std::string bits;
    if (rig.create_instance() != VK_SUCCESS || rig.create_device() != VK_SUCCESS) return bits;
    VkBuffer b;
    for (int i = 0; i < 32; ++i) bits += rig.create_buffer(&b) == VK_SUCCESS ? '.' : 'x';
    return bits;
  };
  const std::string a = pattern("vkCreateBuffer:error@p=0.5,seed=11");
  const std::string b = pattern("vkCreateBuffer:error@p=0.5,seed=11 ");  // same fault, fresh counters
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find('x'), std::string::npos);
  EXPECT_NE(a.find('.'), std::string::npos);
}

// Parity's own guarded creation: the adapter listing the webgpu backend runs must turn a failing
// vkCreateInstance into a typed Error, never a crash.
TEST_F(VkChaosLayerTest, AdapterEnumerationTurnsInstanceFailureIntoTypedError) {
  use_layer("vkCreateInstance:error=VK_ERROR_INITIALIZATION_FAILED");
  auto devices = backend::enumerate_vulkan_devices();
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.error().stage, Stage::create_env);
  EXPECT_EQ(devices.error().kind, ErrorKind::error);
  EXPECT_NE(devices.error().message.find("VK_ERROR_INITIALIZATION_FAILED"), std::string::npos);

  use_layer("vkCreateInstance:error=VK_ERROR_OUT_OF_HOST_MEMORY");
  devices = backend::enumerate_vulkan_devices();
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.error().kind, ErrorKind::oom);

  use_layer("mask:maxStorageBufferRange=64K");  // masks leave the listing intact
  devices = backend::enumerate_vulkan_devices();
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  EXPECT_FALSE(devices->empty());
}

}  // namespace
}  // namespace parity::chaos
