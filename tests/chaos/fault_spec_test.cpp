#include "chaos/fault_spec.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "chaos/fault_plan.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity::chaos {
namespace {

std::vector<FaultSpec> parse_ok(const std::string& text) {
  std::vector<FaultSpec> out;
  std::string error;
  EXPECT_TRUE(parse_fault_list(text, out, error)) << error;
  return out;
}

std::string parse_error(const std::string& text) {
  std::vector<FaultSpec> out;
  std::string error;
  EXPECT_FALSE(parse_fault_list(text, out, error)) << text;
  return error;
}

TEST(FaultSpec, ParsesEveryActionAndTrigger) {
  const auto f = parse_ok(
      "vkCreateComputePipelines:null@nth=2; vkAllocateMemory:error=VK_ERROR_OUT_OF_HOST_MEMORY@p=0.25,seed=9;"
      "vkCreateDevice:error;vkQueueSubmit:device-lost@from=4;mask:maxStorageBufferRange=64K;mask:"
      "shaderFloat16=0");
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0].action, FaultAction::null_handle);
  EXPECT_EQ(f[0].trigger, Trigger::nth);
  EXPECT_EQ(f[0].n, 2u);
  EXPECT_EQ(f[1].vk_result, -1);  // VK_ERROR_OUT_OF_HOST_MEMORY
  EXPECT_EQ(f[1].trigger, Trigger::probability);
  EXPECT_DOUBLE_EQ(f[1].probability, 0.25);
  EXPECT_EQ(f[1].seed, 9u);
  EXPECT_EQ(f[2].vk_result, -3);  // default for vkCreateDevice: VK_ERROR_INITIALIZATION_FAILED
  EXPECT_EQ(f[3].action, FaultAction::device_lost);
  EXPECT_EQ(f[3].trigger, Trigger::from);
  EXPECT_EQ(f[4].mask_value, 65536u);
  EXPECT_EQ(f[5].mask_name, "shaderFloat16");
  EXPECT_EQ(f[0].text, "vkCreateComputePipelines:null@nth=2");
}

TEST(FaultSpec, RejectsWhatTheLayerCannotDoAndSaysWhy) {
  EXPECT_NE(parse_error("vkCreateDevice:null").find("only handed out by resource creation"),
            std::string::npos);
  EXPECT_NE(parse_error("vkCreateBuffer:device-lost").find("vkQueueSubmit"), std::string::npos);
  EXPECT_NE(parse_error("vkFoo:error").find("cannot inject into 'vkFoo'"), std::string::npos);
  EXPECT_NE(parse_error("vkCreateBuffer:error=VK_SUCCESS").find("unknown error code"), std::string::npos);
  EXPECT_NE(parse_error("vkCreateBuffer:error@nth=0").find("positive"), std::string::npos);
  EXPECT_NE(parse_error("vkCreateBuffer:error@p=2").find("[0, 1]"), std::string::npos);
  EXPECT_NE(parse_error("mask:maxFoo=3").find("cannot mask"), std::string::npos);
  EXPECT_NE(parse_error("mask:shaderFloat16=1").find("only be hidden"), std::string::npos);
  EXPECT_NE(parse_error("vkCreateBuffer").find("CALL:ACTION"), std::string::npos);
}

TEST(FaultSpec, ProbabilityIsDeterministicAndRoughlyCalibrated) {
  int fired = 0;
  for (uint64_t i = 1; i <= 10000; ++i) {
    const bool a = probability_fires(5, i, 0.3);
    EXPECT_EQ(a, probability_fires(5, i, 0.3));
    fired += a;
  }
  EXPECT_NEAR(fired, 3000, 200);
  EXPECT_FALSE(probability_fires(5, 1, 0.0));
  EXPECT_TRUE(probability_fires(5, 1, 1.0));
}

TEST(FaultPlan, DefaultPlanWalksEveryFaultClassAndCall) {
  const FaultPlan plan = default_plan();
  ASSERT_TRUE(validate_plan(plan).ok());
  std::set<std::string> calls;
  std::set<FaultAction> actions;
  std::set<Trigger> triggers;
  std::set<std::string> masks;
  for (const auto& f : plan.faults) {
    std::vector<FaultSpec> parsed;
    std::string error;
    ASSERT_TRUE(parse_fault_list(f.spec, parsed, error));
    for (const auto& p : parsed) {
      calls.insert(p.call);
      actions.insert(p.action);
      triggers.insert(p.trigger);
      if (p.action == FaultAction::mask) masks.insert(p.mask_name);
    }
  }
  for (auto call : fault_calls()) EXPECT_TRUE(calls.count(std::string(call))) << call;
  EXPECT_EQ(actions.size(), 4u);
  EXPECT_EQ(triggers.size(), 4u);
  for (const char* m : {"maxStorageBufferRange", "maxComputeSharedMemorySize",
                        "maxComputeWorkGroupInvocations", "heapSize", "shaderFloat16"})
    EXPECT_TRUE(masks.count(m)) << m;
}

TEST(FaultPlan, LoadsTomlAndRejectsBadEntries) {
  parity::testing::TempDir dir;
  const std::string good = dir.str() + "/plan.toml";
  std::ofstream(good)
      << "[[fault]]\nname = \"null-pipe\"\nspec = \"vkCreateComputePipelines:null\"\nwhy = \"seed\"\n"
         "[[fault]]\nspec = \"mask:heapSize=1M\"\n";
  auto plan = load_plan(good);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->faults.size(), 2u);
  EXPECT_EQ(plan->faults[0].name, "null-pipe");
  EXPECT_EQ(plan->faults[0].why, "seed");
  EXPECT_EQ(plan->faults[1].name, "mask:heapSize=1M");

  const std::string bad = dir.str() + "/bad.toml";
  std::ofstream(bad) << "[[fault]]\nspec = \"vkCreateBuffer:explode\"\n";
  auto rejected = load_plan(bad);
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().kind, ErrorKind::bad_input);
  EXPECT_NE(rejected.error().message.find("unknown action 'explode'"), std::string::npos);

  const std::string broken = dir.str() + "/broken.toml";
  std::ofstream(broken) << "[[fault]\n";
  EXPECT_FALSE(load_plan(broken).ok());
  EXPECT_FALSE(plan_from_specs({"a:b"}).ok());
}

}  // namespace
}  // namespace parity::chaos
