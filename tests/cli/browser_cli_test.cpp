// The browser backends through the real CLI: Ctrl-C shuts Chromium down and removes its profile,
// and backend keys that do not apply are usage errors.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/child_process.h"
#include "support/processes.h"
#include "support/requirements.h"
#include "support/run_parity.h"

namespace parity {
namespace {
namespace fs = std::filesystem;

std::vector<fs::path> profiles_in(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("parity-chromium-", 0) == 0) found.push_back(e.path());
  return found;
}

// Chromium binds a Unix socket under its TMPDIR, and the kernel caps socket paths at 107 bytes: a
// TMPDIR longer than about 45 characters made every browser row 'crashed'. The profile folder now
// stays short whatever TMPDIR is.
TEST(BrowserCli, ALongTmpdirStillRunsTheBrowser) {
  PARITY_REQUIRE("chromium");
  testing::TempDir tmp;
  fs::path longdir = tmp.path();
  while (longdir.string().size() < 120) longdir /= "a-rather-long-folder-name";
  fs::create_directories(longdir);
  ASSERT_GE(longdir.string().size(), 120u);
  const std::string json = tmp.str() + "/probe.json";
  const auto r =
      testing::run_parity({"probe", std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx", "--backends",
                           "cpu,web-wasm", "--dim", "batch=2", "--quiet", "--json", json},
                          {{"TMPDIR", longdir.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("crashed"), std::string::npos) << text.substr(0, 2000);
}

TEST(BrowserCli, CtrlCShutsChromiumDownAndRemovesItsProfile) {
  PARITY_REQUIRE("chromium");
  testing::TempDir tmp;  // the parity process's TMPDIR: its browser profile lands here
  SpawnOptions so;
  so.exe = PARITY_BIN;
  so.args = {"probe",      std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx",
             "--backends", "cpu,web-wasm",
             "--dim",      "batch=2",
             "--quiet"};
  so.env_set = {{"TMPDIR", tmp.str()}, {"PARITY_TEST_FAULT", "run:hang@web-wasm"}};
  auto child = ChildProcess::spawn(so);
  ASSERT_TRUE(child.ok()) << child.error().describe();
  // Wait until the browser is up and the page hangs in run (its profile exists), then press Ctrl-C.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (profiles_in(tmp.path()).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(profiles_in(tmp.path()).empty()) << "chromium never started";
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_GT(testing::processes_mentioning(tmp.str()), 0);
  ::kill(child->pid(), SIGINT);
  const ExitStatus status = child->wait();
  EXPECT_FALSE(status.signaled) << "parity must unwind, not die of the signal";
  EXPECT_EQ(status.code, 128 + SIGINT);
  EXPECT_TRUE(profiles_in(tmp.path()).empty()) << "the temporary profile must be removed";
  int left = testing::processes_mentioning(tmp.str());
  for (int i = 0; i < 40 && left > 0; ++i) {  // SIGKILL delivery to Chromium's helpers is asynchronous
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = testing::processes_mentioning(tmp.str());
  }
  EXPECT_EQ(left, 0) << "no Chromium process may outlive parity";
}

TEST(BrowserCli, KeysThatDoNotApplyAreUsageErrors) {
  const std::string model = std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"web-wasm:ort-lib=/x.so", "ort-lib= applies to native ONNX Runtime backends only"},
      {"web-wasm:layout=NHWC", "layout= applies to the WebGPU paths"},
      {"web-jsep:log=loud", "log=loud is not one of"},
      {"web-gpu", "unknown EP 'web-gpu'"}};
  for (const auto& [spec, message] : cases) {
    auto r = testing::run_parity({"probe", model, "--backends", spec});
    EXPECT_EQ(r.exit_code, 2) << spec << ": " << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << spec << ": " << r.output;
  }
  auto both = testing::run_parity({"probe", model, "--ort-web-version", "1.22.0", "--ort-web-dir", "/x"});
  EXPECT_EQ(both.exit_code, 2) << both.output;
}

}  // namespace
}  // namespace parity
