// Models whose weights live in an external file (onnx.save with save_as_external_data): probe and
// bisect run them on native and browser backends, bisect's exposed copies and cuts still find the
// weights, and a repro folder stands alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/requirements.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity {
namespace {

namespace fs = std::filesystem;
const std::string kModels = PARITY_TEST_MODELS;

TEST(ExternalDataCli, ProbeAndBisectRunItOnCpu) {
  const std::string model = kModels + "/external_matmul_add_relu.onnx";
  ASSERT_TRUE(fs::is_regular_file(kModels + "/external_matmul_add_relu.data"));
  const auto probe = testing::run_parity({"probe", model, "-b", "cpu", "--dim", "batch=2", "-q"});
  EXPECT_EQ(probe.exit_code, 0) << probe.output;
  const auto bisect =
      testing::run_parity({"bisect", model, "--backend", "other=cpu", "--dim", "batch=2", "-q"});
  EXPECT_EQ(bisect.exit_code, 0) << bisect.output;
}

TEST(ExternalDataCli, ProbeAndBisectRunItInTheBrowser) {
  PARITY_REQUIRE("chromium");
  const std::string model = kModels + "/external_matmul_add_relu.onnx";
  const auto probe = testing::run_parity({"probe", model, "-b", "web-wasm", "--dim", "batch=2", "-q"});
  EXPECT_EQ(probe.exit_code, 0) << probe.output;
  const auto bisect =
      testing::run_parity({"bisect", model, "--backend", "web-wasm", "--dim", "batch=2", "-q"});
  EXPECT_EQ(bisect.exit_code, 0) << bisect.output;
}

// The WebGPU EP's blocked DequantizeLinear bug, its weights external: bisect names the node, and the
// repro model carries the weights it needs inline.
TEST(ExternalDataCli, BisectFindsAPlantedBugAndItsReproStandsAlone) {
  PARITY_REQUIRE("webgpu-adapter");
  testing::TempDir tmp;
  const std::string repro = tmp.str() + "/repro", json_path = tmp.str() + "/bisect.json";
  const auto r = testing::run_parity({"bisect", kModels + "/external_dq_blocked_multilayer.onnx", "--backend",
                                      "webgpu", "--out", repro, "--json", json_path, "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("dq_bias"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::is_regular_file(repro + "/model.onnx")) << r.output;
  EXPECT_FALSE(fs::exists(repro + "/external_dq_blocked_multilayer.data"));
  const auto inspect = testing::run_parity({"inspect", repro + "/model.onnx"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.output;
}

}  // namespace
}  // namespace parity
