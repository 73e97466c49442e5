// `parity accept` as a user runs it: the real binary, real sessions, the repository's own image.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "guard/guard_fixtures.h"
#include "support/json_file.h"
#include "support/run_parity.h"

namespace parity::testing {
namespace {

using ::testing::HasSubstr;

// webgpu and cpu declared fit for MODEL (guard_upscale or its int8 export), web-wasm unfit.
std::string manifest_for(const std::string& model) {
  return std::string(R"(
schema = "parity.manifest/1"
model = "{models}/)") +
         model + R"(.onnx"
[checks]
mean_shift = 0.05
scale = 2
)" + kSweepSetup +
         R"(
[backends.webgpu]
ep = "webgpu"
enabled = true
variant = "fp32"
file = "{models}/)" +
         model + R"(.onnx"
sha256 = "{sha:)" +
         model + R"(}"
precision = "fp32"
graph_optimization = "disabled"
[backends.cpu]
ep = "cpu"
enabled = true
variant = "fp32"
file = "{models}/)" +
         model + R"(.onnx"
sha256 = "{sha:)" +
         model + R"(}"
precision = "fp32"
graph_optimization = "all"
[backends.web-wasm]
ep = "web-wasm"
enabled = false
reason = "not swept"
)";
}

const std::string kSample = std::string("x=") + PARITY_SOURCE_DIR + "/examples/receipt.png";

TEST(AcceptCli, PassesOnACorrectManifestWithTheTaskAssertions) {
  TempDir dir;
  write_manifest(dir, manifest_for("guard_upscale"));
  const auto r = run_parity({"accept", (dir / "caps.toml").string(), "--sample", kSample, "--expect-scale",
                             "2", "--keep-brightness", "0.05", "--min-sharpness", "0.3", "--max-colour-shift",
                             "0.2", "--no-cache", "--json", (dir / "accept.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("every backend declared fit passed"));
  const auto j = read_json(dir / "accept.json");
  EXPECT_EQ(j["schema"], "parity.accept/1");
  EXPECT_TRUE(j["passed"].get<bool>());
  int passed = 0;
  for (const auto& b : j["backends"]) {
    if (b["status"] == "passed") {
      ++passed;
      EXPECT_EQ(b["run"]["checks"].size(), 3u) << b.dump();  // finite, scale, mean_shift
      EXPECT_EQ(b["task_checks"].size(), 4u) << b.dump();
    }
    if (b["backend"] == "web-wasm") {
      EXPECT_EQ(b["status"], "unfit");
    }
  }
  EXPECT_EQ(passed, 2);
}

TEST(AcceptCli, FailsWhenTheManifestDeclaresABrokenBackendFit) {
  TempDir dir;
  write_manifest(dir, manifest_for("guard_upscale_int8"));
  const auto r =
      run_parity({"accept", (dir / "caps.toml").string(), "--sample", kSample, "--no-cache", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("webgpu: preflight-failed: output 'y'"));
  EXPECT_THAT(r.output, HasSubstr("the gate fails"));
}

TEST(AcceptCli, AFailingUserPredicateFailsTheGate) {
  TempDir dir;
  write_manifest(dir, manifest_for("guard_upscale"));
  const auto r = run_parity({"accept", (dir / "caps.toml").string(), "--sample", kSample, "-b", "cpu",
                             "--predicate", "echo face not found; test -s", "--no-cache", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.output;  // `test -s FILE`: the saved output exists and is not empty
  const auto bad = run_parity({"accept", (dir / "caps.toml").string(), "--sample", kSample, "-b", "cpu",
                               "--predicate", "echo face not found; exit 3 #", "--no-cache", "-q"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_THAT(bad.output,
              HasSubstr("task check predicate: `echo face not found; exit 3 #` exited 3: face not found"));
}

TEST(AcceptCli, UsageErrorsExitTwo) {
  TempDir dir;
  write_manifest(dir, manifest_for("guard_upscale"));
  EXPECT_EQ(run_parity({"accept", (dir / "caps.toml").string(), "--sample", "photo.png"}).exit_code, 2);
  EXPECT_EQ(run_parity({"accept", (dir / "caps.toml").string(), "-b", "cuda"}).exit_code, 2);
  EXPECT_EQ(run_parity({"accept", (dir / "missing.toml").string()}).exit_code, 2);
}

}  // namespace
}  // namespace parity::testing
