#include "chaos/fault_plan.h"

#include <toml++/toml.h>

#include <set>

namespace parity::chaos {
namespace {

Error plan_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

}  // namespace

FaultPlan default_plan() {
  FaultPlan p;
  p.source = "built-in";
  auto add = [&](std::string name, std::string spec, std::string why) {
    p.faults.push_back({std::move(name), std::move(spec), std::move(why)});
  };
  add("instance-init-failed", "vkCreateInstance:error=VK_ERROR_INITIALIZATION_FAILED",
      "no usable Vulkan driver stack");
  add("device-init-failed", "vkCreateDevice:error=VK_ERROR_INITIALIZATION_FAILED",
      "device busy or owned by another stack (the seed's QNN case)");
  add("shader-module-oom", "vkCreateShaderModule:error=VK_ERROR_OUT_OF_DEVICE_MEMORY",
      "driver out of memory");
  add("shader-module-null", "vkCreateShaderModule:null", "success reported, no shader module");
  add("pipeline-oom", "vkCreateComputePipelines:error=VK_ERROR_OUT_OF_DEVICE_MEMORY",
      "pipeline compile failure");
  add("pipeline-null", "vkCreateComputePipelines:null", "the seed's crash: success with a null pipeline");
  add("pipeline-null-2nd", "vkCreateComputePipelines:null@nth=2", "only a later kernel's pipeline is null");
  add("pipeline-layout-oom", "vkCreatePipelineLayout:error=VK_ERROR_OUT_OF_HOST_MEMORY",
      "host allocation failure");
  add("pipeline-layout-null", "vkCreatePipelineLayout:null", "success with a null pipeline layout");
  add("descriptor-set-layout-oom", "vkCreateDescriptorSetLayout:error=VK_ERROR_OUT_OF_DEVICE_MEMORY",
      "descriptor allocation failure");
  add("descriptor-set-layout-null", "vkCreateDescriptorSetLayout:null", "success with a null layout");
  add("allocate-memory-oom", "vkAllocateMemory:error=VK_ERROR_OUT_OF_DEVICE_MEMORY",
      "device memory exhausted");
  add("allocate-memory-null", "vkAllocateMemory:null", "success with null device memory");
  add("allocate-memory-flaky", "vkAllocateMemory:error=VK_ERROR_OUT_OF_DEVICE_MEMORY@p=0.3,seed=7",
      "memory pressure: some allocations fail");
  add("buffer-oom", "vkCreateBuffer:error=VK_ERROR_OUT_OF_DEVICE_MEMORY", "buffer creation failure");
  add("buffer-null", "vkCreateBuffer:null", "success with a null buffer");
  add("device-lost-first-submit", "vkQueueSubmit:device-lost@nth=1", "GPU reset before any work ran");
  add("device-lost-later", "vkQueueSubmit:device-lost@from=2", "GPU reset mid-run (TDR)");
  add("mask-storage-buffer-range", "mask:maxStorageBufferRange=64K", "small mobile/NPU-adjacent GPU");
  add("mask-shared-memory", "mask:maxComputeSharedMemorySize=4K", "small workgroup memory");
  add("mask-workgroup-invocations", "mask:maxComputeWorkGroupInvocations=64", "small workgroups");
  add("mask-heap-size", "mask:heapSize=64M", "little device memory");
  add("mask-shader-float16", "mask:shaderFloat16=0", "no fp16 shaders");
  add("mask-robust-buffer-access", "mask:robustBufferAccess=0", "no robust buffer access (Dawn requires it)");
  return p;
}

Result<FaultPlan> load_plan(const std::filesystem::path& path) {
  toml::table doc;
  try {
    doc = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    std::string msg = "fault plan " + path.string() + ": " + std::string(e.description());
    if (e.source().begin) msg += " at line " + std::to_string(e.source().begin.line);
    return plan_error(std::move(msg), "see docs/chaos.md for the plan format");
  }
  FaultPlan plan;
  plan.source = path.string();
  const toml::array* faults = doc["fault"].as_array();
  if (faults == nullptr || faults->empty())
    return plan_error("fault plan " + path.string() + " has no [[fault]] entries",
                      "add [[fault]] tables with a spec = \"CALL:ACTION\" each");
  std::size_t index = 0;
  for (const auto& node : *faults) {
    ++index;
    const toml::table* t = node.as_table();
    const std::string where = "fault plan " + path.string() + " entry " + std::to_string(index);
    if (t == nullptr) return plan_error(where + " is not a table");
    auto spec = (*t)["spec"].value<std::string>();
    if (!spec || spec->empty())
      return plan_error(where + " has no spec", "spec = \"vkCreateComputePipelines:null\"");
    PlannedFault f;
    f.spec = *spec;
    f.name = (*t)["name"].value_or(*spec);
    f.why = (*t)["why"].value_or(std::string());
    plan.faults.push_back(std::move(f));
  }
  PARITY_TRY(validate_plan(plan));
  return plan;
}

Result<FaultPlan> plan_from_specs(const std::vector<std::string>& specs) {
  FaultPlan plan;
  plan.source = "--fault";
  for (const auto& s : specs) plan.faults.push_back({s, s, {}});
  PARITY_TRY(validate_plan(plan));
  return plan;
}

Status validate_plan(const FaultPlan& plan) {
  std::set<std::string> names;
  for (const auto& f : plan.faults) {
    std::vector<FaultSpec> parsed;
    std::string why;
    if (!parse_fault_list(f.spec, parsed, why))
      return plan_error(plan.source + ": " + why, "see docs/chaos.md for the fault grammar");
    if (parsed.empty()) return plan_error(plan.source + ": fault '" + f.name + "' has an empty spec");
    if (!names.insert(f.name).second)
      return plan_error(plan.source + ": fault name '" + f.name + "' is used twice");
  }
  return ok_status();
}

}  // namespace parity::chaos
