// repro.html, the upstream-ready page bisect writes for browser targets, run for real: the CDN
// URL is pointed at the local onnxruntime-web copy and the page is opened in headless Chromium.
#include "backend/browser/repro_page.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "backend/browser/chromium_session.h"
#include "backend/browser/web_server.h"
#include "backend_test_util.h"
#include "support/requirements.h"

namespace parity::backend::browser {
namespace {

NamedTensor int8_tensor(const std::string& name, std::vector<int8_t> v) {
  std::vector<std::byte> b(v.size());
  std::memcpy(b.data(), v.data(), v.size());
  return {name, Tensor::from_bytes(DType::int8, {static_cast<int64_t>(v.size())}, std::move(b)).value()};
}

// The page's output text once it has a verdict; `probe`, when given, is evaluated in the page then
// and its value (as a string) appended after a newline.
std::string run_page(const ReproPage& page, const std::string& probe = {}) {
  auto server = WebServer::start();
  EXPECT_TRUE(server.ok());
  auto dist = locate_ort_web("");
  EXPECT_TRUE(dist.ok());
  std::string html = render_repro_page(page);
  EXPECT_FALSE(html.empty());
  const std::string cdn = "https://cdn.jsdelivr.net/npm/onnxruntime-web@1.30.0/dist/";
  const auto at = html.find(cdn);
  EXPECT_NE(at, std::string::npos) << "the page loads the recorded release from jsDelivr";
  html.replace(at, cdn.size(), (*server)->origin() + (*server)->mount(dist->dist_dir));
  parity::testing::TempDir dir;
  std::filesystem::copy_file(backend::testing::model_path("webgpu_bug_dq_blocked_1d.onnx"),
                             dir / "model.onnx");
  std::ofstream(dir / "repro.html") << html;
  const std::string folder = (*server)->mount(dir.str());
  ChromiumOptions options;
  options.url = (*server)->origin() + folder + "repro.html";
  auto chromium = ChromiumSession::launch(options);
  EXPECT_TRUE(chromium.ok()) << chromium.error().describe();
  for (int i = 0; i < 100; ++i) {
    auto text = (*chromium)->evaluate("document.getElementById('out').textContent", 5);
    if (text.ok() && text->is_string()) {
      const std::string s = text->get<std::string>();
      if (s.find("STILL FAILS") != std::string::npos || s.find("fixed") != std::string::npos ||
          s.find("error:") != std::string::npos) {
        if (probe.empty()) return s;
        auto v = (*chromium)->evaluate("String(" + probe + ")", 5);
        return s + "\n" + (v.ok() && v->is_string() ? v->get<std::string>() : "probe failed");
      }
    }
    usleep(100000);
  }
  if (probe.empty()) return "timed out";
  auto v = (*chromium)->evaluate("String(" + probe + ")", 5);
  return "timed out\n" + (v.ok() && v->is_string() ? v->get<std::string>() : "probe failed");
}

TEST(ReproPage, ShowsTheMiscomputeInAPlainBrowserPage) {
  PARITY_REQUIRE("chromium");
  ReproPage page{*web_path_for("web-webgpu"), "1.30.0", "DequantizeLinear <q> diverges", {}, {}};
  page.inputs.push_back(int8_tensor("q", {1, 1, 1, 1, 1, 1, 1, 1}));
  const std::vector<float> want{1, 1, 10, 10, 100, 100, 1000, 1000};  // what the CPU EP computes
  page.expected.push_back({"y", Tensor::from_floats({8}, want)});
  const std::string out = run_page(page);
  EXPECT_NE(out.find("onnxruntime-web 1.30.0"), std::string::npos) << out;
  EXPECT_NE(out.find("STILL FAILS"), std::string::npos) << out;

  ReproPage wasm = page;  // the same page on the wasm path computes it right
  wasm.path = *web_path_for("web-wasm");
  const std::string fixed = run_page(wasm);
  EXPECT_NE(fixed.find("(fixed)"), std::string::npos) << fixed;
}

// Tensor names come from the model: one that holds "</script><script>..." must stay a string in
// the page's data, not end its script block and run (issue 44). Checked on the bytes and in a real
// browser, where the planted script would set window.planted.
TEST(ReproPage, ATensorNameCannotEndTheScriptBlock) {
  const std::string planted = "q</script><script>window.planted='ran'</script><!--";
  ReproPage page{*web_path_for("web-wasm"), "1.30.0", "a </script> title", {}, {}};
  page.inputs.push_back(int8_tensor(planted, {1, 1, 1, 1, 1, 1, 1, 1}));
  page.expected.push_back({"y\xe2\x80\xa8</script>", Tensor::from_floats({8}, std::vector<float>(8, 1))});
  const std::string html = render_repro_page(page);
  ASSERT_FALSE(html.empty());
  // One script block, closed once at the very end: no name's bytes can close or comment it.
  EXPECT_EQ(html.find("</script>"), html.rfind("</script>")) << html.substr(0, 2000);
  EXPECT_EQ(html.find("</script>") + std::string("</script>\n").size(), html.size());
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_EQ(html.find("\xe2\x80\xa8"), std::string::npos) << "U+2028 escaped";
  EXPECT_NE(html.find("q\\u003c/script\\u003e\\u003cscript\\u003e"), std::string::npos);

  PARITY_REQUIRE("chromium");
  const std::string out = run_page(page, "window.planted");
  // The page ran its own script (it reached a verdict or the runtime's error about the name) and
  // the planted one never ran.
  EXPECT_NE(out.find("onnxruntime-web 1.30.0"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.rfind('\n') + 1), "undefined") << out;
}

TEST(ReproPage, RefusesWhatItCannotEmbed) {
  ReproPage page{*web_path_for("web-wasm"), "1.30.0", "t", {}, {}};
  auto half = Tensor::zeros(DType::float16, {4});
  page.inputs.push_back({"x", std::move(half).value()});
  EXPECT_TRUE(render_repro_page(page).empty());
}

}  // namespace
}  // namespace parity::backend::browser
