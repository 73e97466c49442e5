#include "backend/vulkan_adapter.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>

namespace parity::backend {
namespace {

constexpr const char* kVulkanLib = "libvulkan.so.1";

Error vulkan_error(ErrorKind kind, std::string message, std::string hint = {}) {
  Error e = make_error(kind, Stage::create_env, std::move(message), std::move(hint));
  e.backend = "webgpu";
  return e;
}

std::string version_string(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::string driver_version_string(uint32_t vendor_id, uint32_t v) {
  constexpr uint32_t kNvidia = 0x10DE;
  if (vendor_id == kNvidia)  // NVIDIA packs 10.8.8.6 bits, not the Vulkan API layout
    return std::to_string((v >> 22) & 0x3ff) + "." + std::to_string((v >> 14) & 0xff) + "." +
           std::to_string((v >> 6) & 0xff) + "." + std::to_string(v & 0x3f);
  return version_string(v);
}

std::string device_type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

// Dawn's default ranking for a high-performance request, which is what ORT's WebGPU EP asks for.
int preference(const VulkanDevice& d) {
  if (d.type == "discrete-gpu") return 0;
  if (d.type == "integrated-gpu") return 1;
  if (d.type == "virtual-gpu") return 2;
  if (d.type == "cpu") return 3;
  return 4;
}

// The loader is kept loaded for the process: Dawn loads the same library later anyway, and
// unloading it while Dawn holds instances would pull code out from under it.
Result<PFN_vkGetInstanceProcAddr> vulkan_entry() {
  static std::mutex mutex;
  static PFN_vkGetInstanceProcAddr entry = nullptr;
  std::lock_guard lock(mutex);
  if (entry != nullptr) return entry;
  void* handle = dlopen(kVulkanLib, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return vulkan_error(
        ErrorKind::unavailable,
        std::string("cannot load ") + kVulkanLib + ": " + (why ? why : "unknown dlopen error"),
        "install the Vulkan loader (Debian: libvulkan1)");
  }
  auto* sym = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
  if (sym == nullptr)
    return vulkan_error(ErrorKind::unavailable, std::string(kVulkanLib) + " has no vkGetInstanceProcAddr",
                        "the Vulkan loader looks broken: reinstall libvulkan1");
  entry = sym;
  return entry;
}

std::string vk_result_name(VkResult r) {
  switch (r) {
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    default: return "VkResult " + std::to_string(static_cast<int>(r));
  }
}

// Owns a VkInstance so every exit path destroys it.
class InstanceGuard {
 public:
  InstanceGuard(VkInstance instance, PFN_vkDestroyInstance destroy)
      : instance_(instance), destroy_(destroy) {}
  ~InstanceGuard() {
    if (instance_ != VK_NULL_HANDLE && destroy_ != nullptr) destroy_(instance_, nullptr);
  }
  InstanceGuard(const InstanceGuard&) = delete;
  InstanceGuard& operator=(const InstanceGuard&) = delete;

 private:
  VkInstance instance_;
  PFN_vkDestroyInstance destroy_;
};

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// What this process last set, so `auto` can tell its own earlier choice from the caller's.
std::string& parity_set_driver() {
  static std::string value;
  return value;
}

void use_driver(const std::string& icd_json) {
  setenv("VK_ICD_FILENAMES", icd_json.c_str(), 1);
  setenv("VK_DRIVER_FILES", icd_json.c_str(), 1);
  parity_set_driver() = icd_json;
}

// Best device Dawn should pick; nullopt (and why, in `note`) if none or if listing failed.
std::optional<VulkanDevice> best_device(std::string& note) {
  auto devices = enumerate_vulkan_devices();
  if (!devices.ok()) {
    note += "; Vulkan devices could not be listed: " + devices.error().message;
    return std::nullopt;
  }
  if (devices->empty()) {
    note += "; the Vulkan loader sees no device";
    return std::nullopt;
  }
  return *std::min_element(devices->begin(), devices->end(),
                           [](const auto& a, const auto& b) { return preference(a) < preference(b); });
}

}  // namespace

Result<std::vector<VulkanDevice>> enumerate_vulkan_devices() {
  PARITY_ASSIGN_OR_RETURN(get_proc, vulkan_entry());
  auto create_instance = reinterpret_cast<PFN_vkCreateInstance>(get_proc(VK_NULL_HANDLE, "vkCreateInstance"));
  if (create_instance == nullptr)
    return vulkan_error(ErrorKind::unavailable, "vkGetInstanceProcAddr gave no vkCreateInstance");

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "parity";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  const VkResult created = create_instance(&info, nullptr, &instance);
  // No driver at all is a normal answer ("no devices"), not a failure of the listing.
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER) return std::vector<VulkanDevice>{};
  if (created != VK_SUCCESS || instance == VK_NULL_HANDLE)
    return vulkan_error(created == VK_ERROR_OUT_OF_HOST_MEMORY ? ErrorKind::oom : ErrorKind::error,
                        "vkCreateInstance failed: " + vk_result_name(created),
                        "check the Vulkan driver with vulkaninfo");

  auto destroy = reinterpret_cast<PFN_vkDestroyInstance>(get_proc(instance, "vkDestroyInstance"));
  InstanceGuard guard(instance, destroy);
  auto enumerate =
      reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(get_proc(instance, "vkEnumeratePhysicalDevices"));
  auto properties = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(
      get_proc(instance, "vkGetPhysicalDeviceProperties"));
  // Core in 1.1 (the instance asks for it); a 1.0 loader gives none and the limit stays unknown.
  auto properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
      get_proc(instance, "vkGetPhysicalDeviceProperties2"));
  if (destroy == nullptr || enumerate == nullptr || properties == nullptr)
    return vulkan_error(ErrorKind::error, "the Vulkan loader lacks core 1.0 instance functions");

  uint32_t count = 0;
  VkResult listed = enumerate(instance, &count, nullptr);
  if (listed != VK_SUCCESS && listed != VK_INCOMPLETE)
    return vulkan_error(ErrorKind::error, "vkEnumeratePhysicalDevices failed: " + vk_result_name(listed));
  std::vector<VkPhysicalDevice> handles(count);
  if (count > 0) {
    listed = enumerate(instance, &count, handles.data());
    if (listed != VK_SUCCESS && listed != VK_INCOMPLETE)
      return vulkan_error(ErrorKind::error, "vkEnumeratePhysicalDevices failed: " + vk_result_name(listed));
    handles.resize(count);
  }

  std::vector<VulkanDevice> devices;
  for (VkPhysicalDevice handle : handles) {
    if (handle == VK_NULL_HANDLE) continue;  // a broken driver may hand out null devices
    VkPhysicalDeviceProperties p{};
    properties(handle, &p);
    VulkanDevice d;
    d.name.assign(p.deviceName, strnlen(p.deviceName, VK_MAX_PHYSICAL_DEVICE_NAME_SIZE));
    d.type = device_type_name(p.deviceType);
    d.vendor_id = p.vendorID;
    d.device_id = p.deviceID;
    d.api_version = version_string(p.apiVersion);
    d.driver_version = driver_version_string(p.vendorID, p.driverVersion);
    d.max_storage_buffer_range = p.limits.maxStorageBufferRange;
    if (properties2 != nullptr && p.apiVersion >= VK_API_VERSION_1_1) {
      VkPhysicalDeviceMaintenance4Properties m4{};
      m4.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES;
      VkPhysicalDeviceMaintenance3Properties m3{};
      m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
      m3.pNext = p.apiVersion >= VK_API_VERSION_1_3 ? &m4 : nullptr;
      VkPhysicalDeviceProperties2 p2{};
      p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
      p2.pNext = &m3;
      properties2(handle, &p2);
      d.max_buffer_size = m4.maxBufferSize > 0 ? m4.maxBufferSize : m3.maxMemoryAllocationSize;
    }
    devices.push_back(std::move(d));
  }
  return devices;
}

std::string describe_vulkan_device(const VulkanDevice& device) {
  return device.name + " [vulkan " + device.api_version + ", driver " + device.driver_version + ", " +
         device.type + "]";
}

Result<AdapterChoice> select_webgpu_adapter(std::string_view mode) {
  namespace fs = std::filesystem;
  const std::string swiftshader(kSwiftShaderIcd);
  AdapterChoice choice;
  if (mode == "system") {
    choice.note = "webgpu adapter: system (Vulkan environment left as it is)";
  } else if (mode == "swiftshader") {
    if (!fs::exists(swiftshader))
      return vulkan_error(ErrorKind::unavailable,
                          "SwiftShader's Vulkan driver is not installed at " + swiftshader,
                          "install Debian's chromium package, or pass --webgpu-adapter system");
    use_driver(swiftshader);
    choice.note = "webgpu adapter: swiftshader (forced): VK_ICD_FILENAMES=" + swiftshader;
  } else if (mode == "auto" || mode.empty()) {
    const std::string user_icd = env_or_empty("VK_ICD_FILENAMES");
    const std::string user_drivers = env_or_empty("VK_DRIVER_FILES");
    const std::string& ours = parity_set_driver();
    if (!ours.empty() && (user_drivers.empty() ? user_icd : user_drivers) == ours) {
      choice.note = "webgpu adapter: auto kept the driver chosen earlier in this process (" + ours + ")";
    } else if (!user_icd.empty() || !user_drivers.empty()) {
      choice.note =
          "webgpu adapter: auto kept the caller's " +
          (user_drivers.empty() ? "VK_ICD_FILENAMES=" + user_icd : "VK_DRIVER_FILES=" + user_drivers);
    } else {
      auto devices = enumerate_vulkan_devices();
      const bool has_gpu = devices.ok() && std::any_of(devices->begin(), devices->end(),
                                                       [](const VulkanDevice& d) { return d.type != "cpu"; });
      if (has_gpu) {
        choice.note = "webgpu adapter: auto found a GPU Vulkan device; system drivers used";
      } else if (fs::exists(swiftshader)) {
        use_driver(swiftshader);
        choice.note =
            "webgpu adapter: auto found no GPU Vulkan device; using SwiftShader (VK_ICD_FILENAMES=" +
            swiftshader + ")";
      } else {
        choice.note =
            "webgpu adapter: auto found no GPU Vulkan device and no SwiftShader; system drivers used";
      }
      if (!devices.ok()) choice.note += " (listing failed: " + devices.error().message + ")";
    }
  } else {
    const std::string path(mode);
    if (!fs::is_regular_file(path))
      return vulkan_error(ErrorKind::bad_input, "Vulkan ICD manifest not found: " + path,
                          "--webgpu-adapter takes auto, system, swiftshader or the path of an ICD json");
    use_driver(path);
    choice.note = "webgpu adapter: ICD manifest " + path;
  }
  choice.device = best_device(choice.note);
  if (choice.device) choice.adapter = describe_vulkan_device(*choice.device);
  return choice;
}

}  // namespace parity::backend
