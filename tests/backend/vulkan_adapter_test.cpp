#include "backend/vulkan_adapter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backend_test_util.h"
#include "support/requirements.h"

namespace parity::backend {
namespace {

class VulkanAdapter : public ::testing::Test {
 protected:
  testing::ScopedEnv icd_{"VK_ICD_FILENAMES", std::nullopt};
  testing::ScopedEnv drivers_{"VK_DRIVER_FILES", std::nullopt};
};

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

TEST_F(VulkanAdapter, SwiftShaderIsListedAsACpuDevice) {
  PARITY_REQUIRE("webgpu-adapter");
  setenv("VK_ICD_FILENAMES", std::string(kSwiftShaderIcd).c_str(), 1);
  auto devices = enumerate_vulkan_devices();
  ASSERT_TRUE(devices.ok()) << devices.error().describe();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_NE((*devices)[0].name.find("SwiftShader"), std::string::npos);
  EXPECT_EQ((*devices)[0].type, "cpu");
  const std::string text = describe_vulkan_device((*devices)[0]);
  EXPECT_NE(text.find("[vulkan 1."), std::string::npos) << text;
}

TEST_F(VulkanAdapter, ModesSetOrKeepTheLoaderEnvironment) {
  PARITY_REQUIRE("webgpu-adapter");
  auto forced = select_webgpu_adapter("swiftshader");
  ASSERT_TRUE(forced.ok()) << forced.error().describe();
  EXPECT_EQ(env("VK_ICD_FILENAMES"), kSwiftShaderIcd);
  EXPECT_EQ(env("VK_DRIVER_FILES"), kSwiftShaderIcd);
  EXPECT_NE(forced->adapter.find("SwiftShader"), std::string::npos);

  setenv("VK_ICD_FILENAMES", "/some/user/choice.json", 1);
  unsetenv("VK_DRIVER_FILES");
  auto kept = select_webgpu_adapter("auto");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(env("VK_ICD_FILENAMES"), "/some/user/choice.json");
  EXPECT_NE(kept->note.find("caller"), std::string::npos) << kept->note;

  auto system = select_webgpu_adapter("system");
  ASSERT_TRUE(system.ok());
  EXPECT_EQ(env("VK_ICD_FILENAMES"), "/some/user/choice.json");
}

TEST_F(VulkanAdapter, MissingIcdPathIsBadInput) {
  auto r = select_webgpu_adapter("/nonexistent/icd.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  EXPECT_EQ(r.error().stage, Stage::create_env);
  EXPECT_FALSE(r.error().hint.empty());
  EXPECT_EQ(env("VK_ICD_FILENAMES"), "");  // nothing changed
}

}  // namespace
}  // namespace parity::backend
