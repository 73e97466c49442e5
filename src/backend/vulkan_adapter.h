// backend/vulkan_adapter.h: choosing and describing the Vulkan driver that ORT's WebGPU EP (Dawn)
// will use, from inside the process, before ONNX Runtime creates its environment.
//
// Dawn finds its adapter through the Vulkan loader, which reads VK_ICD_FILENAMES/VK_DRIVER_FILES
// when an instance is created; ORT binds Dawn's instance to its OrtEnv. So the choice must be
// made (by setting those variables) before the env exists, and it holds for that env's life.
// libvulkan is dlopen'ed: a machine without it still runs every other backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/result.h"

namespace parity::backend {

// Chromium's SwiftShader Vulkan driver (Debian package chromium): WebGPU on the CPU.
inline constexpr std::string_view kSwiftShaderIcd = "/usr/lib/chromium/vk_swiftshader_icd.json";

struct VulkanDevice {
  std::string name;  // VkPhysicalDeviceProperties::deviceName
  std::string type;  // "discrete-gpu", "integrated-gpu", "virtual-gpu", "cpu" or "other"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string api_version;     // "1.3.239"
  std::string driver_version;  // decoded the vendor's way where known (NVIDIA), else as major.minor.patch
  // The limits Dawn's WebGPU limits come from: maxStorageBufferRange (its maxStorageBufferBindingSize)
  // and the largest buffer the device creates (maintenance4's maxBufferSize, else maintenance3's
  // maxMemoryAllocationSize); 0 = the device did not say.
  uint64_t max_storage_buffer_range = 0;
  uint64_t max_buffer_size = 0;
};

// Lists the physical devices the Vulkan loader sees with the current environment. An empty list
// (no driver) is a value; an unavailable Error means libvulkan.so.1 itself is missing or broken.
// Errors carry Stage::create_env, where the backend calls this. Thread-safe; keeps no instance.
Result<std::vector<VulkanDevice>> enumerate_vulkan_devices();

// "SwiftShader Device (Subzero) [vulkan 1.3.0, driver 5.0.0, cpu]"
std::string describe_vulkan_device(const VulkanDevice& device);

struct AdapterChoice {
  std::string adapter;                 // description of the device Dawn should pick; empty if none was seen
  std::optional<VulkanDevice> device;  // that device, with its limits
  std::string note;                    // one line for RunResult::notes: how the driver was chosen
};

// Applies BackendSpec::webgpu_adapter to this process's environment:
//   auto        keep a user-set VK_ICD_FILENAMES/VK_DRIVER_FILES; else, when the loader sees no
//               non-CPU device and SwiftShader is installed, point the loader at SwiftShader;
//   swiftshader always point the loader at SwiftShader (unavailable Error if not installed);
//   system      leave the environment alone;
//   PATH        an ICD manifest json to use (bad_input Error if it does not exist).
// Setting a driver sets both VK_ICD_FILENAMES and VK_DRIVER_FILES: loaders since 1.3.207 let the
// latter win, so setting only the former could be silently ignored. Not thread-safe (setenv).
Result<AdapterChoice> select_webgpu_adapter(std::string_view mode);

}  // namespace parity::backend
