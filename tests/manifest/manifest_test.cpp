// Manifests round-trip through TOML and JSON, and every problem of a hand-edited one is named with
// its line, so an application never loads a declaration nobody can vouch for.
#include "manifest/manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include "support/temp_dir.h"

namespace parity::manifest {
namespace {

using ::testing::HasSubstr;

Manifest two_backends() {
  Manifest m;
  m.model = "det.onnx";
  m.parity_version = "0.test";
  m.created = "2026-12-05";
  Declaration webgpu;
  webgpu.backend = "webgpu";
  webgpu.ep = "webgpu";
  webgpu.enabled = true;
  webgpu.variant = "fp32";
  webgpu.file = "det.onnx";
  webgpu.sha256 = std::string(64, 'a');
  webgpu.precision = "fp32";
  webgpu.graph_optimization = "basic";
  webgpu.max_size = "x=320x320";
  webgpu.largest_weight_bytes = 402653184;  // 384 MiB
  webgpu.provider_options = {{"preferredLayout", "NHWC"}};
  webgpu.runtime.fallback = false;
  webgpu.runtime.adapter = "swiftshader";
  Evidence proof;
  proof.cell = 4;
  proof.status = "ok";
  proof.max_abs = 4e-5;
  proof.cosine = 1.0;
  proof.ort_version = "1.30.0";
  proof.adapter = "SwiftShader";
  proof.date = "2026-12-05";
  proof.size = "x=320x320";
  webgpu.evidence = proof;
  Declaration wasm;
  wasm.backend = "web-wasm";
  wasm.ep = "web-wasm";
  wasm.reason = "no variant is correct";
  wasm.runtime.ort_web = "1.22.0";
  wasm.runtime.browser_args = {"--use-vulkan"};
  Evidence failed;  // a disabled backend's evidence names the file that failed
  failed.cell = 9;
  failed.status = "mismatch";
  failed.max_abs = std::numeric_limits<double>::infinity();
  failed.size = "x=160x160";
  failed.variant = "fp16";
  failed.file = "det_fp16.onnx";
  failed.sha256 = std::string(64, 'b');
  failed.precision = "fp16";
  failed.graph_optimization = "all";
  wasm.evidence = failed;
  m.backends = {webgpu, wasm};
  m.model_sha256 = std::string(64, 'c');
  SweepSetup setup;
  setup.reference.provider_options = {{"k", "v"}};
  setup.reference.runtime.ort_lib = "/opt/ort/libonnxruntime.so.1";
  setup.inputs.seed = 18446744073709551615ull;  // above TOML's int64: written as a string
  setup.inputs.dims = {{"batch", 1}};
  setup.inputs.shapes = {{"mask", {1, 1, 8, 8}}};
  setup.inputs.ranges = {{"x", {-1.0, 2.5}}};
  setup.inputs.files = {{"x", "photo.png"}};
  setup.inputs.file_sha256 = {{"x", std::string(64, 'd')}};
  setup.inputs.resize = {{"x", {320, 320}}};
  setup.timeout_s = 120;
  m.sweep = setup;
  Checks checks;  // the guard runtime's: every field away from its default
  checks.finite = false;
  checks.mean_shift = 0.05;
  checks.per_channel = true;
  checks.range = std::pair{0.0, 1.0};
  checks.max_zero_fraction = 0.4;
  checks.grid = 8;
  checks.scale = 4;
  checks.input = "x";
  checks.output = "y";
  m.checks = checks;
  m.backends[0].checks = Checks{};
  m.guard.order = {"webgpu", "web-wasm"};
  m.guard.retries = 3;
  m.guard.overlap = 24;
  m.guard.preflight = false;
  return m;
}

std::vector<std::string> messages(const Checked& c) {
  std::vector<std::string> out;
  for (const auto& p : c.problems) out.push_back(std::to_string(p.line) + " " + p.message);
  return out;
}

TEST(Manifest, RoundTripsThroughTomlAndJson) {
  testing::TempDir dir;
  for (const char* name : {"caps.toml", "caps.json"}) {
    const auto path = dir.path() / name;
    ASSERT_TRUE(write_manifest(two_backends(), path).ok());
    const auto back = read_manifest(path);
    ASSERT_TRUE(back.ok()) << back.error().describe();
    EXPECT_TRUE(back->problems.empty()) << ::testing::PrintToString(messages(*back));
    EXPECT_EQ(to_json(back->manifest), to_json(two_backends())) << name;
  }
}

TEST(Manifest, CheckNamesEveryProblemWithItsLine) {
  testing::TempDir dir;
  const auto path = dir.path() / "caps.toml";
  std::ofstream(path) << "schema = \"parity.manifest/1\"\n"  // 1
                         "model = \"det.onnx\"\n"            // 2
                         "\n"                                // 3
                         "[backends.webgpu]\n"               // 4
                         "ep = \"webgpu\"\n"                 // 5
                         "enabled = true\n"                  // 6
                         "variant = \"fp32\"\n"              // 7
                         "file = \"det.onnx\"\n"             // 8
                         "sha256 = \"not-a-hash\"\n"         // 9
                         "precision = \"fp32\"\n"            // 10
                         "graph_optimisation = \"all\"\n"    // 11: misspelt key
                         "max_size = \"320 by 320\"\n"       // 12
                         "\n"                                // 13
                         "[backends.cpu]\n"                  // 14
                         "ep = \"cpu\"\n"                    // 15
                         "enabled = \"yes\"\n";              // 16
  const auto checked = read_manifest(path);
  ASSERT_TRUE(checked.ok()) << checked.error().describe();
  const auto m = messages(*checked);
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("9 /backends/webgpu/sha256: must be 64 hex digits")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("11 /backends/webgpu/graph_optimisation: unknown key")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("/backends/webgpu/graph_optimization: missing")));
  EXPECT_THAT(m,
              ::testing::Contains(HasSubstr("12 /backends/webgpu/max_size: must read INPUT=HEIGHTxWIDTH")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("16 /backends/cpu/enabled: must be true or false")));
}

TEST(Manifest, CheckKnowsWhatVerifyNeedsAndRefusesWhatItCannotUse) {
  testing::TempDir dir;
  const auto path = dir.path() / "caps.toml";
  std::ofstream(path) << "schema = \"parity.manifest/1\"\n"  // 1
                         "model = \"det.onnx\"\n"            // 2
                         "model_sha256 = \"abc\"\n"          // 3
                         "[sweep]\n"                         // 4
                         "timeout_s = -1\n"                  // 5
                         "[sweep.reference]\n"               // 6
                         "ep = \"cpu\"\n"                    // 7
                         "graph_optimization = \"fast\"\n"   // 8
                         "[sweep.inputs]\n"                  // 9
                         "seed = -3\n"                       // 10
                         "resize = { x = [320] }\n"          // 11
                         "file_sha256 = { y = \"" +
                             std::string(64, 'a') +
                             "\" }\n"                 // 12
                             "[backends.cpu]\n"       // 13
                             "ep = \"cpu\"\n"         // 14
                             "enabled = true\n"       // 15
                             "variant = \"fp32\"\n"   // 16
                             "file = \"det.onnx\"\n"  // 17
                             "sha256 = \"" +
                             std::string(64, 'a') +
                             "\"\n"                            // 18
                             "precision = \"fp32\"\n"          // 19
                             "graph_optimization = \"all\"\n"  // 20
                             "[backends.cpu.runtime]\n"        // 21
                             "fallback = \"no\"\n"             // 22
                             "ort_libb = \"x.so\"\n"           // 23
                             "[backends.cpu.evidence]\n"       // 24
                             "cell = 0\n"                      // 25
                             "status = \"ok\"\n"               // 26
                             "file = \"other.onnx\"\n";        // 27
  const auto checked = read_manifest(path);
  ASSERT_TRUE(checked.ok()) << checked.error().describe();
  const auto m = messages(*checked);
  for (const char* want :
       {"3 /model_sha256: must be 64 hex digits", "5 /sweep/timeout_s: must be a number of seconds > 0",
        "8 /sweep/reference/graph_optimization: must be all, extended, basic or disabled",
        "10 /sweep/inputs/seed: must be an integer >= 0",
        "11 /sweep/inputs/resize/x: must be [HEIGHT, WIDTH]",
        "12 /sweep/inputs/file_sha256/y: names no input of `files`",
        "22 /backends/cpu/runtime/fallback: must be true or false",
        "23 /backends/cpu/runtime/ort_libb: unknown key",
        "27 /backends/cpu/evidence/file: only a disabled backend's evidence names its file"})
    EXPECT_THAT(m, ::testing::Contains(HasSubstr(want))) << want;
  EXPECT_EQ(m.size(), 9u) << ::testing::PrintToString(m);
}

TEST(Manifest, GuardChecksAndSettingsAreCheckedAndLoadListsEveryProblem) {
  testing::TempDir dir;
  const auto path = dir.path() / "caps.toml";
  std::ofstream(path) << "schema = \"parity.manifest/1\"\n"  // 1
                         "model = \"m.onnx\"\n"              // 2
                         "[guard]\n"                         // 3
                         "order = [\"webgpu\", \"cuda\"]\n"  // 4: cuda is not declared
                         "retries = -1\n"                    // 5
                         "[checks]\n"                        // 6
                         "mean_shift = \"small\"\n"          // 7
                         "range = [1.0, 0.0]\n"              // 8
                         "max_zero_fraction = 1.5\n"         // 9
                         "brightness = 1\n"                  // 10: unknown
                         "[backends.webgpu]\n"               // 11
                         "ep = \"webgpu\"\n"                 // 12
                         "enabled = false\n"                 // 13
                         "reason = \"wrong\"\n"              // 14
                         "checks = { scale = 0 }\n";         // 15
  const auto checked = read_manifest(path);
  ASSERT_TRUE(checked.ok()) << checked.error().describe();
  const auto m = messages(*checked);
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("/guard/order: names 'cuda'")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("5 /guard/retries: must be an integer >= 0")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("7 /checks/mean_shift: must be a number >= 0")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("8 /checks/range: must be [LO, HI] with LO <= HI")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("9 /checks/max_zero_fraction: must be a number in [0, 1]")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("10 /checks/brightness: unknown key")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("/backends/webgpu/checks/scale: must be an integer >= 1")));
  EXPECT_EQ(m.size(), 7u) << ::testing::PrintToString(m);

  // What an application calls: one bad_input Error that lists them all, with their lines.
  const auto loaded = Manifest::load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().kind, ErrorKind::bad_input);
  EXPECT_THAT(loaded.error().message, HasSubstr("7 problem(s)"));
  EXPECT_THAT(loaded.error().message, HasSubstr("line 9: /checks/max_zero_fraction"));
}

TEST(Manifest, AnotherSchemaVersionOrNoBackendsIsAProblem) {
  testing::TempDir dir;
  const auto path = dir.path() / "caps.json";
  std::ofstream(path) << R"({"schema": "parity.manifest/2", "model": "m.onnx", "backends": {}})";
  const auto checked = read_manifest(path);
  ASSERT_TRUE(checked.ok());
  const auto m = messages(*checked);
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("/schema: must be \"parity.manifest/1\"")));
  EXPECT_THAT(m, ::testing::Contains(HasSubstr("/backends: must be a table")));
}

TEST(Manifest, UnparsableTomlIsAnErrorWithTheLine) {
  testing::TempDir dir;
  const auto path = dir.path() / "caps.toml";
  std::ofstream(path) << "schema = \"parity.manifest/1\"\n[backends.webgpu\n";
  const auto checked = read_manifest(path);
  ASSERT_FALSE(checked.ok());
  EXPECT_THAT(checked.error().message, HasSubstr("line 2"));
}

// Paths a manifest records are found as a person moving files around would expect.
TEST(Manifest, RecordedPathsAreFoundBesideTheManifestThenFromHereThenByName) {
  testing::TempDir dir;
  const auto folder = dir.path() / "caps";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "photo.png") << "x";
  std::ofstream(dir.path() / "only-here.png") << "x";
  // Relative: beside the manifest first.
  EXPECT_EQ(resolve_recorded("photo.png", folder), folder / "photo.png");
  // Relative and not beside it: from the current folder (the sweep ran there).
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  EXPECT_EQ(resolve_recorded("only-here.png", folder), std::filesystem::path("only-here.png"));
  std::filesystem::current_path(cwd);
  // Absolute but gone (another machine): the file of that name beside the manifest.
  EXPECT_EQ(resolve_recorded("/elsewhere/sweeps/photo.png", folder), folder / "photo.png");
  // Nowhere: the first candidate, for the reader to report missing.
  EXPECT_EQ(resolve_recorded("missing.png", folder), folder / "missing.png");
  EXPECT_EQ(resolve_recorded("/gone/missing.png", folder), std::filesystem::path("/gone/missing.png"));
}

}  // namespace
}  // namespace parity::manifest
