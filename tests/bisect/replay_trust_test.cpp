// Issue 44: a repro folder is data. `parity verify` runs only the runtimes the user names; the
// programs, libraries and paths a planted repro.json names are shown and not used, unless
// --trust-repro. The planted library (tests/support/planted) and browser script leave a marker
// file when they run, so each test proves both sides: no marker without the flag, one with it.
#include "bisect/replay_trust.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bisect/repro_folder.h"
#include "bisect/verify.h"
#include "isolate/protocol.h"
#include "support/json_file.h"
#include "support/requirements.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity::bisect {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A repro folder for matmul_add_relu (x zeros) whose repro.json says `spec` (as target_spec, or
// only as the spec text `target` when spec is null), as a hostile issue attachment would.
void write_folder(const fs::path& dir, const json& spec, const std::string& target) {
  fs::create_directories(dir);
  fs::copy_file(fs::path(PARITY_TEST_MODELS) / "matmul_add_relu.onnx", dir / "model.onnx");
  const std::vector<float> zeros16(16, 0.f), zeros8(8, 0.f);
  const std::vector<NamedTensor> in{{"x", Tensor::from_floats({1, 16}, zeros16)}};
  const std::vector<NamedTensor> out{{"y", Tensor::from_floats({1, 8}, zeros8)}};
  ASSERT_TRUE(write_test_data_set(dir, "cpu", in, out, {}).ok());
  json repro{{"schema", kReproSchema},
             {"target", target},
             {"reference", "cpu"},
             {"measured", "planted"},
             {"command", "touch " + (dir / "command.ran").string()}};
  if (!spec.is_null()) repro["target_spec"] = spec;
  std::ofstream(dir / "repro.json") << repro.dump(2);
}

// A copy of the planted library; loading it creates `<copy>.ran`.
fs::path plant_library(const fs::path& dir) {
  const fs::path lib = dir / "libplanted.so";
  fs::copy_file(PARITY_TEST_PLANTED_LIB, lib);
  return lib;
}

// An executable script that creates `<script>.ran` when run (as a browser or a command prefix).
fs::path plant_script(const fs::path& dir, const std::string& name) {
  const fs::path script = dir / name;
  std::ofstream(script) << "#!/bin/sh\ntouch '" << script.string() << ".ran'\nexit 1\n";
  ::chmod(script.c_str(), 0755);
  return script;
}

bool ran(const fs::path& planted) { return fs::exists(planted.string() + ".ran"); }

std::string joined(const json& lines) {
  std::string s;
  for (const auto& l : lines) s += l.get<std::string>() + "\n";
  return s;
}

TEST(VerifyTrust, ARecordedOrtLibraryIsShownNotLoaded) {
  testing::TempDir tmp;
  const fs::path lib = plant_library(tmp.path());
  backend::BackendSpec spec;
  spec.label = spec.ep = "cpu";
  spec.ort_lib = lib.string();
  spec.optimized_model_path = (tmp / "written.onnx").string();
  spec.session_config = {{"session.intra_op.allow_spinning", "0"}, {"ep.context_file_path", "ctx.onnx"}};
  const fs::path dir = tmp / "repro";
  write_folder(dir, isolate::spec_to_json(spec), "cpu");

  const auto r = testing::run_parity({"verify", dir.string(), "--json", (tmp / "v.json").string()});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "ran on the bundled ORT\n" << r.output;
  EXPECT_FALSE(ran(lib)) << "the recorded ort_lib was loaded\n" << r.output;
  EXPECT_FALSE(fs::exists(tmp / "written.onnx")) << "the recorded save-optimized path was written";
  EXPECT_FALSE(fs::exists(dir / "command.ran"));
  EXPECT_NE(r.output.find("recorded ort_lib " + lib.string() + " not used: pass --trust-repro"),
            std::string::npos)
      << r.output;
  const json j = testing::read_json(tmp / "v.json");
  const std::string not_used = joined(j["not_used"]);
  EXPECT_NE(not_used.find("save-optimized " + (tmp / "written.onnx").string()), std::string::npos)
      << not_used;
  EXPECT_NE(not_used.find("session entry ep.context_file_path=ctx.onnx"), std::string::npos) << not_used;
  EXPECT_EQ(not_used.find("allow_spinning"), std::string::npos) << "a plain entry is replayed";

  // With --trust-repro the recorded library is what loads (and, not being ORT, fails by name).
  const auto t = testing::run_parity({"verify", dir.string(), "--trust-repro"});
  EXPECT_TRUE(ran(lib)) << t.output;
  EXPECT_EQ(t.exit_code, 3) << t.output;
  EXPECT_NE(t.output.find(lib.string()), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("not used"), std::string::npos) << t.output;
}

// Folders from before target_spec was recorded give only the spec text: it is parsed, and its
// ort-lib= is the recorder's all the same.
TEST(VerifyTrust, TheSpecTextOfAnOlderFolderIsTreatedTheSame) {
  testing::TempDir tmp;
  const fs::path lib = plant_library(tmp.path());
  const fs::path dir = tmp / "repro";
  write_folder(dir, nullptr, "cpu:ort-lib=" + lib.string());
  const auto r = testing::run_parity({"verify", dir.string()});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
  EXPECT_FALSE(ran(lib)) << r.output;
  EXPECT_NE(r.output.find("recorded ort_lib " + lib.string() + " not used"), std::string::npos) << r.output;
  const auto t = testing::run_parity({"verify", dir.string(), "--trust-repro"});
  EXPECT_TRUE(ran(lib)) << t.output;
}

TEST(VerifyTrust, ARecordedBrowserAndItsFlagsAreShownNotRun) {
  PARITY_REQUIRE("chromium");
  testing::TempDir tmp;
  const fs::path browser = plant_script(tmp.path(), "chromium");
  const fs::path prefix = plant_script(tmp.path(), "prefix");
  backend::BackendSpec spec;
  spec.label = spec.ep = "web-wasm";
  spec.browser = browser.string();
  spec.browser_args = {"--no-sandbox", "--renderer-cmd-prefix=" + prefix.string()};
  const fs::path dir = tmp / "repro";
  write_folder(dir, isolate::spec_to_json(spec), "web-wasm");

  const auto r = testing::run_parity({"verify", dir.string()});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "ran on the default Chromium\n" << r.output;
  EXPECT_FALSE(ran(browser)) << r.output;
  EXPECT_FALSE(ran(prefix)) << r.output;
  EXPECT_NE(r.output.find("recorded browser " + browser.string() + " not used: pass --trust-repro to run it"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("recorded Chromium flag --renderer-cmd-prefix=" + prefix.string() + " not used"),
            std::string::npos)
      << r.output;

  const auto t = testing::run_parity({"verify", dir.string(), "--trust-repro"});
  EXPECT_TRUE(ran(browser)) << t.output;
  EXPECT_EQ(t.exit_code, 3) << t.output;
}

// The rule itself, field by field: safe values replay, the user's own settings always win.
TEST(ReplaySpec, KeepsSafeValuesAndTakesTheRestFromTheUser) {
  backend::BackendSpec rec;
  rec.label = rec.ep = "web-webgpu";
  rec.opt_level = "basic";
  rec.ort_web = "1.22.0";
  rec.provider_options = {{"preferredLayout", "NHWC"}, {"qnn_backend", "/x/libQnnHtp.so"}};
  backend::BackendSpec given;
  auto r = replay_spec(rec, given, false);
  EXPECT_EQ(r.spec.ort_web, "1.22.0") << "a release number names no code of the recorder's";
  EXPECT_EQ(r.spec.opt_level, "basic");
  ASSERT_EQ(r.spec.provider_options.size(), 1u);
  EXPECT_EQ(r.spec.provider_options[0].first, "preferredLayout");
  rec.ort_web = "../../tmp/evil";
  rec.webgpu_adapter = "/tmp/evil_icd.json";
  r = replay_spec(rec, given, false);
  EXPECT_EQ(r.spec.ort_web, "");
  EXPECT_EQ(r.spec.webgpu_adapter, "auto");
  EXPECT_EQ(r.not_used.size(), 3u);
  given.ort_web = "/opt/my-ort-web";
  given.browser = "/opt/my-chromium";
  r = replay_spec(rec, given, false);
  EXPECT_EQ(r.spec.ort_web, "/opt/my-ort-web") << "the user's own folder is used";
  EXPECT_EQ(r.spec.browser, "/opt/my-chromium");
  r = replay_spec(rec, backend::BackendSpec{}, true);
  EXPECT_EQ(r.spec.webgpu_adapter, "/tmp/evil_icd.json");
  EXPECT_TRUE(r.not_used.empty());
}

}  // namespace
}  // namespace parity::bisect
