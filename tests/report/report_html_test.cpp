// The HTML reports as a person sees them: written by the real binary on a real miscompute, opened
// in headless Chromium from disk (no server: the file must stand alone), with no console errors,
// its key elements present and its pictures decoded at their declared sizes. With
// PARITY_SCREENSHOT_DIR set, each page's screenshot is saved there (docs/img/ holds the shipped ones).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backend/browser/chromium_session.h"
#include "core/file_io.h"
#include "core/text.h"
#include "support/requirements.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity::testing {
namespace {

using backend::browser::ChromiumOptions;
using backend::browser::ChromiumSession;
using nlohmann::json;

// Opens `html` and returns what the page shows: console errors, and `probe` evaluated in it.
struct Rendered {
  std::vector<std::string> console_errors;
  json facts;
};

Rendered render(const std::filesystem::path& html, const std::string& probe,
                const std::string& screenshot_name) {
  Rendered r;
  ChromiumOptions options;
  options.url = "file://" + html.string();
  auto chromium = ChromiumSession::launch(options);
  EXPECT_TRUE(chromium.ok()) << chromium.error().describe();
  if (!chromium.ok()) return r;
  // Pictures are data: URIs: wait until every one has decoded (or failed to).
  auto facts = (*chromium)->evaluate(
      "Promise.all([...document.images].map(i => i.decode().catch(() => null))).then(() => (" + probe + "))",
      60);
  EXPECT_TRUE(facts.ok()) << facts.error().describe();
  if (facts.ok()) r.facts = *facts;
  for (const std::string& line : (*chromium)->console_messages())
    if (line.rfind("error", 0) == 0 || line.rfind("warning", 0) == 0) r.console_errors.push_back(line);
  if (const char* dir = std::getenv("PARITY_SCREENSHOT_DIR"); dir && *dir) {
    auto metrics =
        (*chromium)->evaluate("[document.documentElement.scrollWidth, document.body.scrollHeight]", 10);
    if (metrics.ok())
      (void)(*chromium)->command("Emulation.setDeviceMetricsOverride",
                                 {{"width", std::max(1200, (*metrics)[0].get<int>())},
                                  {"height", std::min(4000, (*metrics)[1].get<int>() + 40)},
                                  {"deviceScaleFactor", 1},
                                  {"mobile", false}},
                                 10);
    auto shot = (*chromium)->command("Page.captureScreenshot", {{"format", "png"}}, 30);
    EXPECT_TRUE(shot.ok()) << shot.error().describe();
    if (shot.ok()) {
      const auto png = base64_decode((*shot)["data"].get<std::string>());
      EXPECT_TRUE(png.has_value());
      if (png) {
        EXPECT_TRUE(write_text_file(std::filesystem::path(dir) / screenshot_name, *png).ok());
      }
    }
  }
  return r;
}

// The int8 upscaler on the WebGPU EP: two of three channels come out black (a blocked 1-D
// DequantizeLinear read with the wrong scale, tests/models/models_guard.py).
TEST(ReportHtml, TheProbePageShowsTheVerdictsThePicturesAndTheBlackChannels) {
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto html = dir.path() / "probe.html";
  const auto r =
      run_parity({"probe", std::string(PARITY_TEST_MODELS) + "/guard_upscale_int8.onnx", "-b", "cpu,webgpu",
                  "--shape", "x=1,3,48,64", "--range", "x=0,1", "--html", html.string(), "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.output;  // the mismatch is the finding
  const Rendered page = render(html, R"({
    mismatch: [...document.querySelectorAll('table.grid td.verdict-mismatch')].map(td => td.textContent),
    match: document.querySelectorAll('table.grid td.verdict-match').length,
    backends: [...document.querySelectorAll('table.backends tr[data-backend]')].map(tr => tr.dataset.backend),
    adapters: [...document.querySelectorAll('table.backends tr[data-backend] td:nth-child(5)')].map(td => td.textContent),
    bars: document.querySelectorAll('svg.chart rect.bar').length,
    images: [...document.images].map(i => [i.className, i.naturalWidth, i.naturalHeight, i.width, i.height]),
  })",
                               "probe.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("mismatch")) << f.dump(1);
  ASSERT_EQ(f["mismatch"].size(), 1u) << f.dump(1);
  EXPECT_NE(f["mismatch"][0].get<std::string>().find("rule"), std::string::npos) << f.dump(1);
  EXPECT_EQ(f["backends"], json({"cpu", "webgpu"}));
  EXPECT_NE(f["adapters"][1].get<std::string>().find("SwiftShader"), std::string::npos) << f.dump(1);
  EXPECT_EQ(f["bars"].get<int>(), 6) << f.dump(1);  // 3 channels x (reference, webgpu)
  // The reference and webgpu pictures and one heat map, each decoded at the output's 96x128.
  ASSERT_EQ(f["images"].size(), 3u) << f.dump(1);
  for (const auto& img : f["images"]) {
    EXPECT_EQ(img[1], 128) << img.dump();
    EXPECT_EQ(img[2], 96) << img.dump();
    EXPECT_EQ(img[1], img[3]) << "declared and decoded sizes differ: " << img.dump();
  }
  EXPECT_EQ(f["images"][2][0], "heatmap");
}

// The real WebGPU miscompute (a blocked 1-D DequantizeLinear) in the middle of a seven-node model.
TEST(ReportHtml, TheBisectPageChartsTheErrorAndShowsTheCulpritNode) {
  PARITY_REQUIRE("webgpu-adapter");
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto html = dir.path() / "bisect.html";
  const auto r =
      run_parity({"bisect", std::string(PARITY_TEST_MODELS) + "/webgpu_bug_dq_blocked_1d_multilayer.onnx",
                  "--backend", "webgpu", "--html", html.string(), "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.output;
  const Rendered page = render(html, R"({
    culprit: document.querySelector('table.culprit') ? document.querySelector('table.culprit').textContent : '',
    lines: document.querySelectorAll('svg.chart path.line').length,
    points: document.querySelectorAll('svg.chart circle').length,
    marker: document.querySelector('svg.chart line.marker') ? document.querySelector('svg.chart text[fill]').textContent : '',
    inputs: [...document.querySelectorAll('table.neighbourhood tr td:first-child')].map(td => td.textContent),
    attributes: [...document.querySelectorAll('table.attributes tr td:first-child')].map(td => td.textContent),
  })",
                               "bisect.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("culprit")) << f.dump(1);
  EXPECT_NE(f["culprit"].get<std::string>().find("dq_bias (DequantizeLinear)"), std::string::npos)
      << f.dump(1);
  EXPECT_NE(f["culprit"].get<std::string>().find("born here"), std::string::npos) << f.dump(1);
  EXPECT_EQ(f["lines"], 2) << f.dump(1);  // the error and the bound
  EXPECT_GE(f["points"].get<int>(), 3) << f.dump(1);
  EXPECT_EQ(f["marker"], "bias (DequantizeLinear)") << f.dump(1);
  EXPECT_GE(f["inputs"].size(), 2u) << f.dump(1);  // the quantized values and their scales at least
  EXPECT_NE(std::find(f["attributes"].begin(), f["attributes"].end(), "block_size"), f["attributes"].end())
      << f.dump(1);
}

// Any page, for the screenshots in docs/: PARITY_SCREENSHOT_HTML=page.html PARITY_SCREENSHOT_DIR=docs/img
// (e.g. the bisect report of Silero VAD on WebGPU in the README); skipped otherwise.
TEST(ReportHtml, ScreenshotOfAGivenPage) {
  const char* page = std::getenv("PARITY_SCREENSHOT_HTML");
  if (!page || !*page || !std::getenv("PARITY_SCREENSHOT_DIR")) GTEST_SKIP() << "no page to photograph";
  PARITY_REQUIRE("chromium");
  const Rendered r = render(std::filesystem::absolute(page), "document.title",
                            std::filesystem::path(page).stem().string() + ".png");
  EXPECT_TRUE(r.console_errors.empty()) << ::testing::PrintToString(r.console_errors);
}

}  // namespace
}  // namespace parity::testing
