// The fixed conformance subsets: the real `parity conformance` binary on the real ONNX node tests,
// natively on cpu and webgpu (SwiftShader) and in headless Chromium on web-wasm, web-jsep and
// web-webgpu, checked against tests/fixtures/conformance/expected_subset{,_web}.json.
// A test that starts to pass, or stops passing, fails here with a line naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <vector>

#include "conformance/conformance_json.h"
#include "conformance/test_case.h"
#include "support/run_parity.h"

namespace parity::conformance {
namespace {
namespace fs = std::filesystem;

// One fixed subset per family of backends; each must keep covering the outcomes it was chosen for.
struct Subset {
  const char* name;
  const char* expect_file;  // under tests/fixtures/conformance/
  const char* backends;
  std::vector<State> must_cover;
};

void PrintTo(const Subset& s, std::ostream* os) { *os << s.name; }

class ConformanceSubset : public ::testing::TestWithParam<Subset> {};

TEST_P(ConformanceSubset, StatesMatchTheRecordedExpectations) {
  const Subset& subset = GetParam();
  if (!fs::exists(fs::path(kDefaultSuiteDir) / "test_abs"))
    GTEST_SKIP() << "libonnx-testdata not installed (scripts/bootstrap.sh installs it)";
  testing::TempDir dir;
  const std::string expect = std::string(PARITY_FIXTURES) + "/conformance/" + subset.expect_file;
  const std::string json = fs::path(dir.path()).string() + "/subset.json";
  auto r = testing::run_parity(
      {"conformance", "--expect", expect, "--backends", subset.backends, "--json", json, "--timeout", "120"},
      {}, 540);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("all "), std::string::npos) << r.output;
  auto report = read_report_file(json);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  std::set<State> seen;
  for (const auto& t : report->tests)
    for (const auto& o : t.results) seen.insert(o.state);
  for (State s : subset.must_cover) EXPECT_TRUE(seen.count(s)) << "no test of the subset is " << to_string(s);
}

INSTANTIATE_TEST_SUITE_P(
    , ConformanceSubset,
    ::testing::Values(
        Subset{"native",
               "expected_subset.json",
               "cpu,webgpu",
               {State::passed, State::failed, State::not_supported, State::skipped}},
        // In real headless Chromium with onnxruntime-web 1.30.0 (scripts/bootstrap.sh installs both).
        Subset{"browser",
               "expected_subset_web.json",
               "web-wasm,web-jsep,web-webgpu",
               {State::passed, State::failed, State::error, State::not_supported, State::skipped}}),
    [](const ::testing::TestParamInfo<Subset>& p) { return std::string(p.param.name); });

TEST(ConformanceCli, DiffExitsOneOnRegression) {
  testing::TempDir dir;
  auto write = [&](const std::string& name, const std::string& webgpu_state) {
    const std::string path = fs::path(dir.path()).string() + "/" + name;
    std::ofstream(path)
        << R"({"schema":"parity.conformance/1","backends":[{"label":"webgpu","ep":"webgpu"}],)"
        << R"("tests":[{"name":"test_abs","op":"Abs","results":{"webgpu":{"state":")" << webgpu_state
        << R"(","message":"m"}}}]})";
    return path;
  };
  const std::string a = write("a.json", "passed"), b = write("b.json", "failed");
  auto regressed = testing::run_parity({"conformance", "diff", a, b});
  EXPECT_EQ(regressed.exit_code, 1) << regressed.output;
  EXPECT_NE(regressed.output.find("| test_abs | Abs | webgpu | passed | failed | **yes**"), std::string::npos)
      << regressed.output;
  auto fixed = testing::run_parity({"conformance", "diff", b, a});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  auto bad = testing::run_parity({"conformance", "diff", a, fs::path(dir.path()).string() + "/missing.json"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

TEST(ConformanceCli, ListAndBadSuite) {
  if (!fs::exists(fs::path(kDefaultSuiteDir) / "test_abs")) GTEST_SKIP() << "libonnx-testdata not installed";
  auto list = testing::run_parity({"conformance", "--list", "--filter", "test_abs*"});
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("test_abs\n"), std::string::npos) << list.output;
  auto bad = testing::run_parity({"conformance", "--suite", "/nonexistent", "--backends", "cpu"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("libonnx-testdata"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace parity::conformance
