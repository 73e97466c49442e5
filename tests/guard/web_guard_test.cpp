// parity-guard.mjs (src/guard/web) in headless Chromium on the page's own onnxruntime-web 1.30.0:
// the same chain, preflight, self-checks, refusals and tiles as the native guard, on the wasm and
// WebGPU paths (WebGPU on Chromium's SwiftShader here, NVIDIA on the GPU machine).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "backend/browser/chromium_session.h"
#include "backend/browser/ort_web_dist.h"
#include "backend/browser/web_server.h"
#include "guard/guard_fixtures.h"
#include "manifest/manifest.h"
#include "support/json_file.h"
#include "support/requirements.h"
#include "support/run_parity.h"

namespace parity::testing {
namespace {

using backend::browser::ChromiumOptions;
using backend::browser::ChromiumSession;
using backend::browser::WebServer;
using nlohmann::json;

// One page with the server that feeds it: onnxruntime-web's dist, the module, the test models.
class WebGuardPage {
 public:
  explicit WebGuardPage(const std::string& bundle, std::vector<std::string> chromium_args = {}) {
    auto server = WebServer::start();
    EXPECT_TRUE(server.ok());
    server_ = std::move(server).value();
    auto dist = backend::browser::locate_ort_web("");
    EXPECT_TRUE(dist.ok());
    ort_url_ = server_->origin() + server_->mount(dist->dist_dir) + bundle;
    guard_url_ = server_->origin() + server_->mount(std::string(PARITY_SOURCE_DIR) + "/src/guard/web") +
                 "parity-guard.mjs";
    scenarios_url_ = server_->origin() + server_->mount(std::string(PARITY_SOURCE_DIR) + "/tests/guard/web") +
                     "scenarios.mjs";
    models_url_ = server_->origin() + server_->mount(PARITY_TEST_MODELS);
    std::ofstream(dir_ / "index.html") << "<!doctype html><title>parity-guard test</title>\n";
    ChromiumOptions options;
    options.url = server_->origin() + server_->mount(dir_.str()) + "index.html";
    options.extra_args = std::move(chromium_args);
    auto chromium = ChromiumSession::launch(options);
    EXPECT_TRUE(chromium.ok()) << chromium.error().describe();
    if (chromium.ok()) chromium_ = std::move(chromium).value();
  }

  // Runs tests/guard/web/scenarios.mjs on `model` with the manifest written from `toml`.
  json run(const Manifest& m, const std::string& model, int64_t h, int64_t w,
           const json& options = json::object()) {
    if (!chromium_) return {{"harness", "no browser"}};
    const json args{{"ortUrl", ort_url_}, {"guardUrl", guard_url_},           {"modelsUrl", models_url_},
                    {"model", model},     {"manifest", manifest::to_json(m)}, {"size", {h, w}},
                    {"options", options}};
    auto r =
        chromium_->evaluate("import('" + scenarios_url_ + "').then(m => m.run(" + args.dump() + "))", 300);
    EXPECT_TRUE(r.ok()) << r.error().describe();
    return r.ok() ? *r : json{{"harness", r.error().describe()}};
  }

  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::unique_ptr<WebServer> server_;
  std::unique_ptr<ChromiumSession> chromium_;
  std::string ort_url_, guard_url_, scenarios_url_, models_url_;
};

constexpr const char* kWebGpuBundle = "ort.webgpu.bundle.min.mjs";  // web-webgpu: the native EP in wasm
constexpr const char* kJsepBundle = "ort.bundle.min.mjs";           // web-jsep

// A browser manifest for MODEL: LABEL (an EP of the page) declared fit, web-wasm as the fallback.
std::string web_manifest(const std::string& model, const std::string& label, const std::string& extra,
                         const std::string& declaration_extra = "") {
  return std::string(R"(
schema = "parity.manifest/1"
model = ")") +
         model + R"(.onnx"
)" + extra +
         kSweepSetup + R"(
[backends.)" +
         label + R"(]
ep = ")" +
         label + R"("
enabled = true
variant = "fp32"
file = ")" +
         model + R"(.onnx"
sha256 = "{sha:)" +
         model + R"(}"
precision = "fp32"
graph_optimization = "all"
)" + declaration_extra +
         R"(
[backends.web-wasm]
ep = "web-wasm"
enabled = true
variant = "fp32"
file = ")" +
         model + R"(.onnx"
sha256 = "{sha:)" +
         model + R"(}"
precision = "fp32"
graph_optimization = "all"
)";
}

int count(const json& events, const std::string& kind, const std::string& backend) {
  int n = 0;
  for (const auto& e : events)
    n += (e.value("kind", "") == kind && e.value("backend", "") == backend) ? 1 : 0;
  return n;
}

TEST(WebGuard, PreflightRejectsTheWebGpuMiscomputeBeforeTheModelIsUsed) {
  PARITY_REQUIRE("chromium");
  WebGuardPage page(kWebGpuBundle);
  const Manifest m = write_manifest(page.dir(), web_manifest("guard_upscale_int8", "web-webgpu", ""));
  const json r = page.run(m, "guard_upscale_int8.onnx", 48, 40);
  ASSERT_TRUE(r.contains("openEvents")) << r.dump(1);
  EXPECT_EQ(count(r["openEvents"], "preflight-failed", "web-webgpu"), 1) << r.dump(1);
  EXPECT_EQ(count(r["openEvents"], "selected", "web-wasm"), 1) << r.dump(1);
  EXPECT_EQ(r["run"]["backend"], "web-wasm") << r.dump(1);
  EXPECT_EQ(r["maxDiffVsWasm"], 0.0) << r.dump(1);
}

TEST(WebGuard, ASelfCheckCatchesTheMiscomputeAndTheWasmPathServes) {
  PARITY_REQUIRE("chromium");
  WebGuardPage page(kWebGpuBundle);
  const Manifest m = write_manifest(
      page.dir(),
      web_manifest(
          "guard_upscale_int8", "web-webgpu",
          "[guard]\npreflight = false\n[checks]\nmean_shift = 0.05\nper_channel = true\nscale = 2\n"));
  const json r = page.run(m, "guard_upscale_int8.onnx", 40, 40);
  ASSERT_TRUE(r.contains("run")) << r.dump(1);
  EXPECT_EQ(r["backend"], "web-webgpu") << r.dump(1);  // no preflight: the wrong backend starts serving
  const json& events = r["run"]["events"];
  EXPECT_EQ(count(events, "check-failed", "web-webgpu"), 3) << events.dump(1);
  EXPECT_EQ(count(events, "retry-tiled", "web-webgpu"), 2) << events.dump(1);
  EXPECT_EQ(count(events, "fell-back", "web-webgpu"), 1) << events.dump(1);
  EXPECT_EQ(r["run"]["backend"], "web-wasm");
  EXPECT_EQ(r["maxDiffVsWasm"], 0.0) << r.dump(1);
}

TEST(WebGuard, NoUsableWebGpuAdapterFallsBackWithTheReason) {
  PARITY_REQUIRE("chromium");
  // Without a software rasterizer, a machine with no GPU gives Chromium no WebGPU adapter at all.
  WebGuardPage page(kWebGpuBundle, {"--disable-software-rasterizer"});
  const Manifest m = write_manifest(page.dir(), web_manifest("guard_upscale", "web-webgpu", ""));
  const json r = page.run(m, "guard_upscale.onnx", 32, 32);
  ASSERT_TRUE(r.contains("openEvents")) << r.dump(1);
  if (count(r["openEvents"], "selected", "web-webgpu") == 1)
    GTEST_SKIP() << "this machine has a hardware adapter";
  ASSERT_EQ(count(r["openEvents"], "open-failed", "web-webgpu"), 1) << r.dump(1);
  for (const auto& e : r["openEvents"])
    if (e["kind"] == "open-failed") {
      EXPECT_EQ(e["error"]["kind"], "unavailable") << e.dump();
      EXPECT_EQ(e["error"]["stage"], "append-provider") << e.dump();
    }
  EXPECT_EQ(r["run"]["backend"], "web-wasm");
}

// The adapter's real limits against a file whose largest weight is declared at 64 GiB: refused
// before a session is created on it, with the limit in the reason.
TEST(WebGuard, AnAdapterBelowTheFilesLargestWeightIsRefusedBeforeTheSessionIsCreated) {
  PARITY_REQUIRE("chromium");
  WebGuardPage page(kWebGpuBundle);
  const Manifest m = write_manifest(
      page.dir(), web_manifest("guard_upscale", "web-webgpu", "", "largest_weight_bytes = 68719476736\n"));
  const json r = page.run(m, "guard_upscale.onnx", 32, 32);
  ASSERT_TRUE(r.contains("openEvents")) << r.dump(1);
  ASSERT_EQ(count(r["openEvents"], "open-failed", "web-webgpu"), 1) << r.dump(1);
  for (const auto& e : r["openEvents"])
    if (e["kind"] == "open-failed") {
      EXPECT_EQ(e["error"]["kind"], "unavailable") << e.dump();
      EXPECT_NE(e["message"].get<std::string>().find("the adapter's maxBufferSize is"), std::string::npos)
          << e.dump();
    }
  EXPECT_EQ(r["run"]["backend"], "web-wasm");
}

TEST(WebGuard, ABackendDeclaredUnfitIsRefusedWhenTheUrlForcesIt) {
  PARITY_REQUIRE("chromium");
  WebGuardPage page(kWebGpuBundle);
  std::string toml = web_manifest("guard_upscale_int8", "web-webgpu", "");
  toml = replace_all(toml, "ep = \"web-webgpu\"\nenabled = true",
                     "ep = \"web-webgpu\"\nenabled = false\nreason = \"blocked 1-D DequantizeLinear reads "
                     "the wrong scale\"");
  const Manifest m = write_manifest(page.dir(), toml);
  const json r = page.run(m, "guard_upscale_int8.onnx", 32, 32, {{"force", "web-webgpu"}});
  ASSERT_TRUE(r.contains("openEvents")) << r.dump(1);
  ASSERT_EQ(count(r["openEvents"], "refused", "web-webgpu"), 1) << r.dump(1);
  EXPECT_NE(r["openEvents"][0]["message"].get<std::string>().find("blocked 1-D"), std::string::npos);
  EXPECT_EQ(r["backend"], "web-wasm");
}

TEST(WebGuard, TilesWithinTheDeclaredBudgetGiveTheWholeImageOnWebGpu) {
  PARITY_REQUIRE("chromium");
  WebGuardPage page(kWebGpuBundle);
  const Manifest m = write_manifest(
      page.dir(), web_manifest("guard_upscale", "web-webgpu", "[checks]\nmean_shift = 0.05\nscale = 2\n",
                               "size_budget = \"x=48x48\"\n"));
  const json r = page.run(m, "guard_upscale.onnx", 128, 96);
  ASSERT_TRUE(r.contains("run")) << r.dump(1);
  EXPECT_EQ(r["run"]["backend"], "web-webgpu") << r.dump(1);
  EXPECT_GT(r["run"]["tiles"].get<int>(), 4) << r.dump(1);
  EXPECT_EQ(r["run"]["dims"], json({1, 3, 256, 192}));
  EXPECT_LT(r["maxDiffVsWasm"].get<double>(), 1e-5) << r.dump(1);
}

TEST(WebGuard, TheJsepPathServesTheRightModelAndIsRejectedOnTheWrongOne) {
  PARITY_REQUIRE("chromium");
  WebGuardPage page(kJsepBundle);
  const Manifest m =
      write_manifest(page.dir(), web_manifest("guard_upscale", "web-jsep", "[checks]\nmean_shift = 0.05\n"));
  const json r = page.run(m, "guard_upscale.onnx", 64, 48);
  ASSERT_TRUE(r.contains("run")) << r.dump(1);
  EXPECT_EQ(count(r["openEvents"], "preflight-passed", "web-jsep"), 1) << r.dump(1);
  EXPECT_EQ(r["run"]["backend"], "web-jsep");
  EXPECT_LT(r["maxDiffVsWasm"].get<double>(), 1e-5) << r.dump(1);
  // JSEP reads the blocked DequantizeLinear's scales as wrongly as the native EP does.
  const Manifest int8 = write_manifest(page.dir(), web_manifest("guard_upscale_int8", "web-jsep", ""));
  const json bad = page.run(int8, "guard_upscale_int8.onnx", 32, 32);
  ASSERT_TRUE(bad.contains("openEvents")) << bad.dump(1);
  EXPECT_EQ(count(bad["openEvents"], "preflight-failed", "web-jsep"), 1) << bad.dump(1);
  EXPECT_EQ(bad["run"]["backend"], "web-wasm");
}

TEST(WebGuard, AManifestWithNoBrowserBackendIsATypedError) {
  PARITY_REQUIRE("chromium");
  WebGuardPage page(kWebGpuBundle);
  Manifest m = write_manifest(page.dir(), web_manifest("guard_upscale", "web-webgpu", ""));
  m.backends.resize(1);         // web-webgpu only...
  m.backends[0].ep = "webgpu";  // ...and native: nothing for the page to run
  const json r = page.run(m, "guard_upscale.onnx", 16, 16);
  ASSERT_TRUE(r.contains("error")) << r.dump(1);
  EXPECT_EQ(r["error"]["kind"], "unavailable") << r.dump(1);
}

// examples/web-upscale as a user stages and opens it: stage.sh (a real sweep and manifest), the
// page in headless Chromium, the image upscaled through the guard, a forced unfit backend refused.
TEST(WebGuard, TheExamplePageUpscalesTheImageThroughTheGuard) {
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto staged = run_command(
      {"/bin/bash", std::string(PARITY_SOURCE_DIR) + "/examples/web-upscale/stage.sh", dir.str() + "/site"});
  ASSERT_EQ(staged.exit_code, 0) << staged.output;
  auto server = WebServer::start();
  ASSERT_TRUE(server.ok());
  const std::string site = (*server)->origin() + (*server)->mount(dir.str() + "/site");
  auto open_page = [&](const std::string& query) {
    ChromiumOptions options;
    options.url = site + "index.html" + query;
    auto chromium = ChromiumSession::launch(options);
    EXPECT_TRUE(chromium.ok()) << chromium.error().describe();
    if (!chromium.ok()) return json();
    for (int i = 0; i < 600; ++i) {
      auto r = (*chromium)->evaluate("globalThis.parityExample || null", 10);
      if (r.ok() && r->is_object()) return *r;
      ::usleep(100000);
    }
    return json{{"error", "the page did not finish in 60 s"}};
  };
  const json done = open_page("");
  EXPECT_FALSE(done.contains("error")) << done.dump(1);
  EXPECT_EQ(done["backend"], "web-webgpu") << done.dump(1);
  EXPECT_EQ(done["dims"], json({1, 3, 720, 960})) << done.dump(1);
  EXPECT_NE(done["log"].get<std::string>().find("preflight-passed"), std::string::npos) << done.dump(1);

  // The team declares WebGPU unfit; a user forcing it in the URL gets the wasm path and the reason.
  const auto caps_path = dir.path() / "site" / "caps.json";
  json caps = read_json(caps_path);
  caps["backends"]["web-webgpu"] = {
      {"ep", "web-webgpu"}, {"enabled", false}, {"reason", "not signed off for 1.30.0"}};
  std::ofstream(caps_path) << caps.dump(2);
  const json forced = open_page("?backend=web-webgpu");
  EXPECT_EQ(forced["backend"], "web-wasm") << forced.dump(1);
  EXPECT_NE(forced["log"].get<std::string>().find("refused"), std::string::npos) << forced.dump(1);
  EXPECT_NE(forced["log"].get<std::string>().find("not signed off"), std::string::npos) << forced.dump(1);
}

}  // namespace
}  // namespace parity::testing
