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
#include "backend/vulkan_adapter.h"
#include "core/file_io.h"
#include "core/text.h"
#include "guard/guard_fixtures.h"
#include "support/json_file.h"
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

// A real trained network, PP-OCRv4's text detector, on the native WebGPU EP and on onnxruntime-web's
// WebGPU in Chromium: the page shows the three probability maps and two difference maps, all at
// the output's size, and no false alarm (every cell a match). 160x160 keeps it quick on SwiftShader;
// docs/img/probe-ppocr-det.png is the same page at 640x640.
TEST(ReportHtml, ThePpOcrDetectorPageShowsEachBackendsProbabilityMap) {
  PARITY_REQUIRE("ocr-models");
  PARITY_REQUIRE("webgpu-adapter");
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto html = dir.path() / "ppocr.html";
  const auto r = run_parity({"probe", std::string(PARITY_THIRD_PARTY) + "/models/ch_PP-OCRv4_det_infer.onnx",
                             "-b", "cpu,webgpu,web-webgpu", "--input",
                             std::string("x=") + PARITY_SOURCE_DIR + "/examples/receipt.png", "--resize",
                             "x=160,160", "--html", html.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Rendered page = render(html, R"({
    cells: [...document.querySelectorAll('table.grid td.verdict')].map(td => td.className),
    pictures: [...document.querySelectorAll('img.picture')].map(i => [i.naturalWidth, i.naturalHeight]),
    heatmaps: [...document.querySelectorAll('img.heatmap')].map(i => [i.naturalWidth, i.naturalHeight]),
  })",
                               "ppocr.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("cells")) << f.dump(1);
  EXPECT_EQ(f["cells"], json({"verdict verdict-reference", "verdict verdict-match", "verdict verdict-match"}))
      << f.dump(1);
  EXPECT_EQ(f["pictures"], json({{160, 160}, {160, 160}, {160, 160}})) << f.dump(1);
  EXPECT_EQ(f["heatmaps"], json({{160, 160}, {160, 160}})) << f.dump(1);
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

// --markdown beside --html: the same report as text for an upstream issue, every picture and chart it
// links to written next to it, and nothing else.
void expect_markdown_with_attachments(const std::filesystem::path& md, std::size_t attachments,
                                      const std::vector<std::string>& must_say) {
  std::ifstream in(md);
  ASSERT_TRUE(in) << md;
  const auto text = std::make_optional(std::string(std::istreambuf_iterator<char>(in), {}));
  for (const auto& s : must_say) EXPECT_NE(text->find(s), std::string::npos) << s << "\n" << *text;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(md.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(md.stem().string() + "-", 0) != 0) continue;
    ++files;
    EXPECT_NE(text->find("](" + name + ")"), std::string::npos) << name << " is not linked";
  }
  EXPECT_EQ(files, attachments) << *text;
}

// The seed's crash (a null compute pipeline) and two faults the backend turns into errors.
TEST(ReportHtml, TheChaosPageColoursEachOutcomeAndGivesTheCrashRepro) {
  PARITY_REQUIRE("webgpu-adapter");
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto r =
      run_parity({"chaos", std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx", "--backend", "webgpu",
                  "--dim", "batch=2", "--timeout", "60", "--fault", "vkCreateComputePipelines:null",
                  "--fault", "vkQueueSubmit:device-lost", "--html", (dir / "chaos.html").string(),
                  "--markdown", (dir / "chaos.md").string(), "-q"},
                 {{"VK_ICD_FILENAMES", std::string(backend::kSwiftShaderIcd)},
                  {"VK_DRIVER_FILES", std::string(backend::kSwiftShaderIcd)}});
  ASSERT_EQ(r.exit_code, 1) << r.output;  // the crash is the finding
  const Rendered page = render(dir / "chaos.html", R"({
    rows: [...document.querySelectorAll('table.robustness tr[data-fault]')].map(tr =>
      [tr.dataset.fault, tr.dataset.outcome, tr.querySelector('td.verdict').className]),
    repro: document.querySelector('pre.commands') ? document.querySelector('pre.commands').textContent : '',
  })",
                               "chaos.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("rows")) << f.dump(1);
  ASSERT_EQ(f["rows"].size(), 3u) << f.dump(1);  // baseline and the two faults
  EXPECT_EQ(f["rows"][1], json({"vkCreateComputePipelines:null", "crashed", "verdict verdict-mismatch"}));
  EXPECT_EQ(f["rows"][2], json({"vkQueueSubmit:device-lost", "clean-error", "verdict verdict-match"}));
  EXPECT_NE(f["repro"].get<std::string>().find("--fault 'vkCreateComputePipelines:null'"), std::string::npos)
      << f.dump(1);
  expect_markdown_with_attachments(dir / "chaos.md", 0,
                                   {"| vkCreateComputePipelines:null | crashed |", "```sh"});
}

// Two ORT releases side by side (the per-op grid per backend and version), then the diff of that
// result against a later one in which a test regressed.
TEST(ReportHtml, TheConformancePagesShowTheOpGridPerVersionAndTheDiff) {
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const std::string old_ort = std::string(PARITY_THIRD_PARTY) + "/ort-1.29.0/lib/libonnxruntime.so.1";
  const auto run =
      run_parity({"conformance", "--filter", "test_abs*", "--filter", "test_dequantizelinear*", "--backends",
                  "ort129=cpu:ort-lib=" + old_ort + ",cpu", "--json", (dir / "a.json").string(), "--html",
                  (dir / "conformance.html").string(), "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const Rendered page = render(dir / "conformance.html", R"({
    columns: [...document.querySelectorAll('table.ops tr:first-child th')].map(th => th.textContent),
    ops: [...document.querySelectorAll('table.ops tr[data-op]')].map(tr => tr.dataset.op),
    passing: document.querySelectorAll('table.ops td.verdict-match').length,
  })",
                               "conformance.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("columns")) << f.dump(1);
  EXPECT_EQ(f["columns"], json({"op", "tests", "ort129 (ORT 1.29.0)", "cpu (ORT 1.30.0)"})) << f.dump(1);
  EXPECT_NE(std::find(f["ops"].begin(), f["ops"].end(), "Abs"), f["ops"].end()) << f.dump(1);
  EXPECT_EQ(f["passing"].get<std::size_t>(), 2 * f["ops"].size()) << f.dump(1);

  // The later result: test_abs fails on cpu.
  json later = read_json(dir / "a.json");
  ASSERT_TRUE(later.is_object());
  for (auto& t : later["tests"])
    if (t["name"] == "test_abs") t["results"]["cpu"]["state"] = "failed";
  ASSERT_TRUE(write_text_file(dir / "b.json", later.dump()).ok());
  const auto diff =
      run_parity({"conformance", "diff", (dir / "a.json").string(), (dir / "b.json").string(), "--html",
                  (dir / "diff.html").string(), "--markdown", (dir / "diff.md").string()});
  EXPECT_EQ(diff.exit_code, 1) << diff.output;
  const Rendered diff_page = render(dir / "diff.html", R"({
    regressions: [...document.querySelectorAll('table.changes tr[data-regression=yes]')].map(tr => tr.dataset.test),
    red: document.querySelectorAll('table.changes td.verdict-mismatch').length,
  })",
                                    "conformance-diff.png");
  EXPECT_TRUE(diff_page.console_errors.empty()) << ::testing::PrintToString(diff_page.console_errors);
  EXPECT_EQ(diff_page.facts["regressions"], json({"test_abs"})) << diff_page.facts.dump(1);
  EXPECT_EQ(diff_page.facts["red"], 1) << diff_page.facts.dump(1);
  expect_markdown_with_attachments(dir / "diff.md", 0, {"| test_abs | Abs | cpu | passed | failed | yes |"});
}

// A real cliff: the CPU EP capped at 300 MiB runs out of memory past some size (as in
// SweepCli.SizeSearchFindsWhereACappedBackendRunsOutOfMemoryToOneStep).
TEST(ReportHtml, TheSweepPageShowsTheMatrixAndTheCliffWithItsBudget) {
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto r = run_parity({"sweep", std::string(PARITY_TEST_MODELS) + "/sweep_conv.onnx", "-b",
                             "small=cpu:max-memory=300M", "--size-search", "x=256,256", "--size-step", "64",
                             "--out", (dir / "sweep").string(), "--html", (dir / "sweep.html").string(),
                             "--markdown", (dir / "sweep.md").string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Rendered page = render(dir / "sweep.html", R"({
    cells: [...document.querySelectorAll('table.matrix td.verdict')].map(td => td.className),
    points: [...document.querySelectorAll('svg.chart circle.point')].map(c => c.getAttribute('fill')),
    budget: [...document.querySelectorAll('svg.chart text')].map(t => t.textContent).filter(t => t.startsWith('budget')),
    trials: document.querySelectorAll('table.trials tr').length - 1,
  })",
                               "sweep.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("cells")) << f.dump(1);
  EXPECT_EQ(f["cells"], json({"verdict verdict-match"})) << f.dump(1);
  // Every size tried is a point: correct ones green, the out-of-memory ones purple at the top.
  EXPECT_EQ(f["points"].size(), f["trials"].get<std::size_t>()) << f.dump(1);
  EXPECT_NE(std::find(f["points"].begin(), f["points"].end(), "#009E73"), f["points"].end()) << f.dump(1);
  EXPECT_NE(std::find(f["points"].begin(), f["points"].end(), "#CC79A7"), f["points"].end()) << f.dump(1);
  ASSERT_EQ(f["budget"].size(), 1u) << f.dump(1);
  EXPECT_NE(f["budget"][0].get<std::string>().find("budget x="), std::string::npos);
  expect_markdown_with_attachments(dir / "sweep.md", 1, {"## Size cliff", "| oom |"});
}

// The blocked 1-D DequantizeLinear, found live on the WebGPU EP and matched to its finding.
TEST(ReportHtml, TheLintPageColoursTheHitAndNamesItsEvidence) {
  PARITY_REQUIRE("webgpu-adapter");
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto r = run_parity(
      {"lint", std::string(PARITY_TEST_MODELS) + "/webgpu_bug_dq_blocked_1d_multilayer.onnx", "-b",
       "cpu,webgpu", "--html", (dir / "lint.html").string(), "--markdown", (dir / "lint.md").string(), "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.output;
  const Rendered page = render(dir / "lint.html", R"({
    hits: [...document.querySelectorAll('table.hits tr[data-rule]')].map(tr =>
      [tr.dataset.rule, tr.querySelector('td.verdict').className]),
    adapters: [...document.querySelectorAll('table.backends tr[data-backend] td:nth-child(4)')].map(td => td.textContent),
    evidence: [...document.querySelectorAll('section[data-rule] .note')].map(n => n.textContent).join(' '),
  })",
                               "lint.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("hits")) << f.dump(1);
  EXPECT_EQ(f["hits"], json::array({json::array({"dq-blocked-1d", "verdict verdict-mismatch"})}))
      << f.dump(1);
  EXPECT_NE(f["adapters"][1].get<std::string>().find("SwiftShader"), std::string::npos) << f.dump(1);
  EXPECT_NE(f["evidence"].get<std::string>().find("webgpu-dq-blocked-1d"), std::string::npos) << f.dump(1);
  expect_markdown_with_attachments(dir / "lint.md", 0, {"| error | dq-blocked-1d |"});
}

// A small seeded hunt on WebGPU: the blocked 1-D DequantizeLinear it finds is one finding section
// whose boundary table marks the rank as essential (rank 1 fails, 2 passes).
TEST(ReportHtml, TheHuntPageShowsTheSpacesAndEachFindingsBoundary) {
  PARITY_REQUIRE("webgpu-adapter");
  PARITY_REQUIRE("chromium");
  TempDir dir;
  const auto r = run_parity({"hunt", "--backends", "webgpu", "--ops", "DequantizeLinear", "--cases", "12",
                             "--seed", "1", "-j", "2", "--out", (dir / "findings").string(), "--html",
                             (dir / "hunt.html").string(), "--markdown", (dir / "hunt.md").string(), "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.output;
  const Rendered page = render(dir / "hunt.html", R"({
    spaces: [...document.querySelectorAll('table.spaces tr[data-space]')].map(tr => tr.dataset.space),
    findings: [...document.querySelectorAll('section[data-finding]')].map(s => s.dataset.finding),
    essential: [...document.querySelectorAll('table.boundary tr[data-essential="yes"]')].map(tr => tr.dataset.param),
    verify: [...document.querySelectorAll('pre, code')].map(c => c.textContent).join(' '),
  })",
                               "hunt.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("spaces")) << f.dump(1);
  EXPECT_EQ(f["spaces"], json::array({"DequantizeLinear", "total"})) << f.dump(1);
  ASSERT_EQ(f["findings"].size(), 1u) << f.dump(1);
  EXPECT_NE(f["findings"][0].get<std::string>().find("dequantizelinear"), std::string::npos) << f.dump(1);
  EXPECT_NE(std::find(f["essential"].begin(), f["essential"].end(), "R"), f["essential"].end()) << f.dump(1);
  EXPECT_NE(f["verify"].get<std::string>().find("parity verify"), std::string::npos) << f.dump(1);
  expect_markdown_with_attachments(dir / "hunt.md", 0, {"| **DequantizeLinear** | 12 |"});
}

// The release gate on the toy upscaler: both declared backends pass, and the page shows what each
// returned, decoded at the output's size.
TEST(ReportHtml, TheAcceptPageShowsEachBackendsChecksAndOutput) {
  PARITY_REQUIRE("webgpu-adapter");
  PARITY_REQUIRE("chromium");
  TempDir dir;
  auto fit = [](const std::string& ep) {
    return "[backends." + ep + "]\nep = \"" + ep +
           "\"\nenabled = true\nvariant = \"fp32\"\nfile = \"{models}/guard_upscale.onnx\"\nsha256 = "
           "\"{sha:guard_upscale}\"\nprecision = \"fp32\"\ngraph_optimization = \"all\"\n";
  };
  write_manifest(dir,
                 std::string("schema = \"parity.manifest/1\"\nmodel = \"{models}/guard_upscale.onnx\"\n") +
                     "[checks]\nmean_shift = 0.05\nscale = 2\n" + kSweepSetup + fit("cpu") + fit("webgpu"));
  const auto r = run_parity({"accept", (dir / "caps.toml").string(), "--sample",
                             std::string("x=") + PARITY_SOURCE_DIR + "/examples/receipt.png", "--no-cache",
                             "--expect-scale", "2", "--html", (dir / "accept.html").string(), "--markdown",
                             (dir / "accept.md").string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Rendered page = render(dir / "accept.html", R"({
    results: [...document.querySelectorAll('table.results tr[data-backend]')].map(tr =>
      [tr.dataset.backend, tr.querySelector('td.verdict').textContent]),
    failed_checks: document.querySelectorAll('table.checks td.verdict-mismatch').length,
    images: [...document.images].map(i => [i.naturalWidth, i.naturalHeight, i.width, i.height]),
  })",
                               "accept.png");
  EXPECT_TRUE(page.console_errors.empty()) << ::testing::PrintToString(page.console_errors);
  const json& f = page.facts;
  ASSERT_TRUE(f.contains("results")) << f.dump(1);
  EXPECT_EQ(f["results"], json::array({json::array({"cpu", "passed"}), json::array({"webgpu", "passed"})}))
      << f.dump(1);
  EXPECT_EQ(f["failed_checks"], 0) << f.dump(1);
  // The receipt is 480x360; x2 is 960x720, drawn at most 320 wide.
  ASSERT_EQ(f["images"].size(), 2u) << f.dump(1);
  for (const auto& img : f["images"]) {
    EXPECT_EQ(img[0], 320) << img.dump();
    EXPECT_EQ(img[1], 240) << img.dump();
    EXPECT_EQ(img[0], img[2]) << "declared and decoded sizes differ: " << img.dump();
  }
  expect_markdown_with_attachments(dir / "accept.md", 2, {"| cpu | cpu | passed | cpu |"});
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
