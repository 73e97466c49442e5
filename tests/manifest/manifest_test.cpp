// Manifests round-trip through TOML and JSON, and every problem of a hand-edited one is named with
// its line, so an application never loads a declaration nobody can vouch for.
#include "manifest/manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

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
  webgpu.provider_options = {{"preferredLayout", "NHWC"}};
  webgpu.evidence = Evidence{4, "ok", 4e-5, 1.0, "1.30.0", "SwiftShader", "2026-12-05"};
  Declaration wasm;
  wasm.backend = "web-wasm";
  wasm.ep = "web-wasm";
  wasm.reason = "no variant is correct";
  m.backends = {webgpu, wasm};
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

}  // namespace
}  // namespace parity::manifest
