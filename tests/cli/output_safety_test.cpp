// Where the binary writes: --json to devices and stdout, --out folders that are the user's, and
// a destination that cannot be written not taking the others down (docs/security.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/json_file.h"
#include "support/requirements.h"
#include "support/run_parity.h"

namespace parity {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::read_json;
using testing::run_parity;
using testing::TempDir;

const std::string kModel = std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx";

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_char_device(const char* path) {
  struct stat st {};
  return ::lstat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

TEST(OutputSafety, JsonToDevFullIsAnIoErrorAndLeavesTheDevice) {
  ASSERT_TRUE(is_char_device("/dev/full"));
  const auto r = run_parity({"inspect", kModel, "--json", "/dev/full"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot write /dev/full"));
  EXPECT_THAT(r.output, HasSubstr("No space left on device"));
  EXPECT_TRUE(is_char_device("/dev/full"));
}

// The JSON on descriptor 1, whichever name says so; the text then goes to stderr.
TEST(OutputSafety, JsonToStdoutByAnyOfItsNames) {
  for (const char* target : {"-", "/dev/stdout", "/dev/fd/1"}) {
    const auto r = run_parity({"inspect", kModel, "--json", target});
    EXPECT_EQ(r.exit_code, 0) << target << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("\"schema\": \"parity.inspect/1\"")) << target;
  }
  EXPECT_FALSE(fs::is_regular_file(fs::symlink_status("/dev/stdout")));
}

// A full disk loses only what it cannot hold: the --html page is still written after the JSON fails.
TEST(OutputSafety, AFailedJsonDoesNotDropTheOtherDocuments) {
  TempDir dir;
  const auto html = dir / "probe.html";
  const auto r = run_parity({"probe", kModel, "--dim", "batch=1", "--backends", "cpu", "--json", "/dev/full",
                             "--html", html.string(), "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot write /dev/full"));
  EXPECT_TRUE(fs::is_regular_file(html)) << r.output;
}

// --save-io under a regular file (no disk space or permission needed to fail, even as root): the
// probe is still reported, its JSON written, and the error names the folder.
TEST(OutputSafety, AnUnwritableSaveIoFolderStillGetsTheJsonWritten) {
  TempDir dir;
  std::ofstream(dir / "file") << "not a folder";
  const auto io = dir / "file" / "io";
  const auto json_path = dir / "probe.json";
  const auto r = run_parity({"probe", kModel, "--dim", "batch=1", "--backends", "cpu", "--save-io",
                             io.string(), "--json", json_path.string(), "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the --save-io folder " + io.string() + " was not written"));
  const auto j = read_json(json_path);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["schema"], "parity.probe/1");
  EXPECT_THAT(r.output, HasSubstr("cpu"));  // the table was printed
}

TEST(OutputSafety, BisectOutRefusesAFolderOfTheUsersOwn) {
  TempDir dir;
  const auto out = dir / "mine";
  fs::create_directory(out);
  std::ofstream(out / "README.md") << "my notes\n";
  const auto r = run_parity(
      {"bisect", kModel, "--dim", "batch=1", "--backend", "other=cpu", "--out", out.string(), "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the folder holds files that Parity did not write"));
  EXPECT_THAT(r.output, HasSubstr("--force"));
  EXPECT_EQ(read_all(out / "README.md"), "my notes\n");
  // --force takes the user's word for it.
  const auto forced = run_parity({"bisect", kModel, "--dim", "batch=1", "--backend", "other=cpu", "--out",
                                  out.string(), "--force", "-q"});
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
}

TEST(OutputSafety, BisectOutAcceptsAFolderParityWrote) {
  TempDir dir;
  const auto out = dir / "repro";
  fs::create_directory(out);
  std::ofstream(out / "repro.json") << R"({"schema": "parity.repro/1"})"
                                    << "\n";
  std::ofstream(out / "README.md") << "written by parity bisect\n";
  const auto r = run_parity(
      {"bisect", kModel, "--dim", "batch=1", "--backend", "other=cpu", "--out", out.string(), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("did not write")));
}

TEST(OutputSafety, HuntAndSweepOutRefuseAFolderOfTheUsersOwn) {
  TempDir dir;
  const auto out = dir / "mine";
  fs::create_directory(out);
  std::ofstream(out / "model.onnx") << "the user's model\n";
  const auto hunt =
      run_parity({"hunt", "--backends", "cpu", "--ops", "Relu", "--cases", "1", "--out", out.string(), "-q"});
  EXPECT_EQ(hunt.exit_code, 2) << hunt.output;
  EXPECT_THAT(hunt.output, HasSubstr("--force"));
  const auto sweep =
      run_parity({"sweep", kModel, "--dim", "batch=1", "--backends", "cpu", "--out", out.string(), "-q"});
  EXPECT_EQ(sweep.exit_code, 2) << sweep.output;
  EXPECT_THAT(sweep.output, HasSubstr("--force"));
  EXPECT_EQ(read_all(out / "model.onnx"), "the user's model\n");
}

TEST(OutputSafety, SaveIoRefusesAFolderOfTheUsersOwnAndRewritesItsOwn) {
  TempDir dir;
  const auto io = dir / "io";
  fs::create_directory(io);
  std::ofstream(io / "notes.txt") << "mine\n";
  const auto refused =
      run_parity({"probe", kModel, "--dim", "batch=1", "--backends", "cpu", "--save-io", io.string(), "-q"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("--save-io " + io.string() + ": the folder holds files"));
  EXPECT_FALSE(fs::exists(io / "test_data_set_0")) << refused.output;

  const auto fresh = dir / "fresh";
  const auto first = run_parity(
      {"probe", kModel, "--dim", "batch=1", "--backends", "cpu", "--save-io", fresh.string(), "-q"});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(read_json(fresh / "io.json")["schema"], "parity.save_io/1");
  EXPECT_TRUE(fs::is_regular_file(fresh / "test_data_set_0" / "input_0.pb"));
  // The folder is Parity's own now: a second run may write it again.
  const auto again = run_parity(
      {"probe", kModel, "--dim", "batch=1", "--backends", "cpu", "--save-io", fresh.string(), "-q"});
  EXPECT_EQ(again.exit_code, 0) << again.output;
}

// A real divergence (ORT's WebGPU EP on a blocked 1-D DequantizeLinear) whose repro folder lies under a
// regular file: the bisect is still printed and its JSON written, and the error names the folder.
TEST(OutputSafety, AnUnwritableReproFolderStillGetsTheJsonWritten) {
  PARITY_REQUIRE("webgpu-adapter");
  TempDir dir;
  std::ofstream(dir / "file") << "not a folder";
  const auto repro = dir / "file" / "repro";
  const auto json_path = dir / "bisect.json";
  const auto r =
      run_parity({"bisect", std::string(PARITY_TEST_MODELS) + "/webgpu_bug_dq_blocked_1d_multilayer.onnx",
                  "--backend", "webgpu", "--out", repro.string(), "--json", json_path.string(), "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the repro folder " + repro.string() + " was not written"));
  EXPECT_THAT(r.output, HasSubstr("dq_bias"));  // the text was printed
  const auto j = read_json(json_path);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["first_divergent"]["node"], "dq_bias");
  EXPECT_TRUE(j["repro_dir"].is_null());
  EXPECT_THAT(j.value("repro_error", ""), HasSubstr(repro.string()));
}

}  // namespace
}  // namespace parity
