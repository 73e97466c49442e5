// `parity accept` as a user runs it: the real binary, real sessions, the repository's own image.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "guard/guard_fixtures.h"
#include "support/json_file.h"
#include "support/requirements.h"
#include "support/run_parity.h"

namespace parity::testing {
namespace {

using ::testing::HasSubstr;

// One declaration of MODEL, fit, on EP (labelled EP) at graph optimisation OPT.
std::string fit(const std::string& ep, const std::string& model, const std::string& opt = "all") {
  return "[backends." + ep + "]\nep = \"" + ep +
         "\"\nenabled = true\nvariant = \"fp32\"\nfile = \"{models}/" + model +
         ".onnx\"\nsha256 = \"{sha:" + model + "}\"\nprecision = \"fp32\"\ngraph_optimization = \"" + opt +
         "\"\n";
}

// MODEL (guard_upscale or its int8 export) with the manifest's checks and DECLARATIONS.
std::string manifest_with(const std::string& model, const std::string& declarations) {
  return "schema = \"parity.manifest/1\"\nmodel = \"{models}/" + model +
         ".onnx\"\n[checks]\nmean_shift = 0.05\nscale = 2\n" + kSweepSetup + declarations;
}

// webgpu and cpu declared fit for MODEL, web-wasm unfit.
std::string manifest_for(const std::string& model) {
  return manifest_with(
      model, fit("webgpu", model, "disabled") + fit("cpu", model) +
                 "[backends.web-wasm]\nep = \"web-wasm\"\nenabled = false\nreason = \"not swept\"\n");
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

// The model names its output "../../…/tmp/parity-hostile-name/pwned" (tests/models/models_hostile.py):
// the .npy given to the predicate stays in Parity's scratch folder, under a sanitised name.
TEST(AcceptCli, AModelsOutputNameNeverBecomesAPathOutsideTheScratchFolder) {
  TempDir dir;
  const std::filesystem::path outside = "/tmp/parity-hostile-name";
  std::filesystem::create_directories(outside);  // so an unescaped write would succeed, and show
  struct Cleanup {
    std::filesystem::path p;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } cleanup{outside};
  write_manifest(dir, manifest_with("guard_upscale_hostile_name", fit("cpu", "guard_upscale_hostile_name")));
  const auto r = run_parity({"accept", (dir / "caps.toml").string(), "--sample", kSample, "-b", "cpu",
                             "--predicate", "echo given; test -s", "--no-cache", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.output;  // the predicate got its file
  EXPECT_FALSE(std::filesystem::exists(outside / "pwned.npy"));
  EXPECT_TRUE(std::filesystem::is_empty(outside));
}

// Both browser paths (and the wasm one) through parity-guard.mjs in headless Chromium, on the
// application's own image, with the same checks and assertions as the native run.
TEST(AcceptCli, AcceptsTheBrowserPathsThroughTheWebModuleInChromium) {
  PARITY_REQUIRE("chromium");
  TempDir dir;
  write_manifest(dir, manifest_with("guard_upscale", fit("web-webgpu", "guard_upscale") +
                                                         fit("web-jsep", "guard_upscale") +
                                                         fit("web-wasm", "guard_upscale")));
  const auto r =
      run_parity({"accept", (dir / "caps.toml").string(), "--sample", kSample, "--expect-scale", "2",
                  "--keep-brightness", "0.05", "--no-cache", "--json", (dir / "accept.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto j = read_json(dir / "accept.json");
  ASSERT_EQ(j["backends"].size(), 3u) << j.dump(1);
  for (const auto& b : j["backends"]) {
    EXPECT_EQ(b["status"], "passed") << b.dump(1);
    EXPECT_EQ(b["run"]["backend"], b["backend"]) << b.dump(1);
    EXPECT_EQ(b["run"]["checks"].size(), 3u) << b.dump(1);  // finite, scale, mean_shift: the module's
    EXPECT_EQ(b["task_checks"].size(), 2u) << b.dump(1);    // on the outputs read back from the page
  }
}

// The sweep fed an image (recorded relative to the manifest, as `parity manifest` beside it writes
// it): the page decodes it for its preflight rather than skipping the check.
TEST(AcceptCli, ABrowserPathDeclaredFitThatMiscomputesFailsTheGate) {
  PARITY_REQUIRE("chromium");
  TempDir dir;
  std::filesystem::copy_file(std::string(PARITY_SOURCE_DIR) + "/examples/receipt.png", dir / "receipt.png");
  const std::string toml =
      replace_all(manifest_with("guard_upscale_int8", fit("web-webgpu", "guard_upscale_int8") +
                                                          fit("web-wasm", "guard_upscale_int8")),
                  "shapes = { x = [1, 3, 32, 32] }\nranges = { x = [0.0, 1.0] }",
                  "files = { x = \"receipt.png\" }\nresize = { x = [36, 48] }");
  ASSERT_NE(toml.find("receipt.png"), std::string::npos);
  write_manifest(dir, toml);
  const auto r = run_parity({"accept", (dir / "caps.toml").string(), "--sample", kSample, "--no-cache",
                             "--json", (dir / "accept.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("web-webgpu: preflight-failed: output 'y'"));
  const auto j = read_json(dir / "accept.json");
  for (const auto& b : j["backends"])
    EXPECT_EQ(b["status"], b["backend"] == "web-wasm" ? "passed" : "failed") << b.dump(1);
}

// `parity accept` runs the guard in its own process (no worker sets ORT's environment for it): with
// nothing set by the caller, ORT's telemetry must still stay off and leave no mat-debug-PID.log.
TEST(AcceptCli, AnInProcessRunLeavesTheTempDirectoryAsItFoundIt) {
  TempDir dir;
  write_manifest(dir, manifest_for("guard_upscale"));
  const std::string tmp = (dir / "tmp").string();
  std::filesystem::create_directories(tmp);
  const auto r = run_command({"/usr/bin/env", "-u", "ORT_DISABLE_TELEMETRY", "-u", "ORT_TELEMETRY_DISABLED",
                              "TMPDIR=" + tmp, PARITY_BIN, "accept", (dir / "caps.toml").string(), "--sample",
                              kSample, "-b", "cpu", "--no-cache", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(tmp)) left.push_back(e.path().filename().string());
  EXPECT_TRUE(left.empty()) << ::testing::PrintToString(left);
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
