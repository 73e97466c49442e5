// The fixed conformance subsets: the real `parity conformance` binary on the real ONNX node tests,
// natively on cpu and webgpu (SwiftShader) and in headless Chromium on web-wasm, web-jsep and
// web-webgpu, checked against tests/fixtures/conformance/expected_subset{,_web}.json.
// A test that starts to pass, or stops passing, fails here with a line naming it.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <vector>

#include "conformance/test_case.h"
#include "report/conformance_json.h"
#include "support/requirements.h"
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
  PARITY_REQUIRE("onnx-testdata");
  testing::TempDir dir;
  const std::string expect = std::string(PARITY_FIXTURES) + "/conformance/" + subset.expect_file;
  const std::string json = fs::path(dir.path()).string() + "/subset.json";
  auto r = testing::run_parity(
      {"conformance", "--expect", expect, "--backends", subset.backends, "--json", json, "--timeout", "120"},
      {}, 540);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("all "), std::string::npos) << r.output;
  auto report = report::read_conformance_file(json);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  std::set<State> seen;
  for (const auto& t : report->tests)
    for (std::size_t b = 0; b < t.results.size(); ++b) {
      const Outcome& o = t.results[b];
      seen.insert(o.state);
      // flaky is a failure to investigate, never noise: --expect cannot even record it.
      EXPECT_NE(o.state, State::flaky) << t.name << " on " << report->backends[b].label << ": " << o.reason;
      if (o.state != State::passed && o.state != State::skipped) {
        EXPECT_TRUE(o.rechecked) << t.name << ": every cell that did not pass is re-run fresh";
      }
    }
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

// A cell whose first attempt fails and whose fresh re-run passes is flaky, with both attempts:
// natively (a worker that crashes once) and in the browser (a page that throws once, re-run in a
// freshly loaded page). The test fault's ":first" spares the re-check, as real flakiness would.
TEST(ConformanceCli, AResultThatChangesOnAFreshRerunIsFlaky) {
  PARITY_REQUIRE("onnx-testdata");
  const bool browser = ::access("/usr/lib/chromium/chromium", X_OK) == 0;
  testing::TempDir dir;
  const std::string json = fs::path(dir.path()).string() + "/flaky.json";
  const std::string expect = fs::path(dir.path()).string() + "/expect.json";
  auto r = testing::run_parity({"conformance", "--filter", "test_abs", "--backends",
                                browser ? "cpu,web-wasm" : "cpu", "--json", json, "--write-expect", expect},
                               {{"PARITY_TEST_FAULT", "run:segv:first@cpu,run:abort:first@web-wasm"}}, 300);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("test_abs cpu: flaky (crashed, then passed on a fresh re-run"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not written (an expectation must be deterministic)"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(expect));
  auto report = report::read_conformance_file(json);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  ASSERT_EQ(report->tests.size(), 1u);
  for (std::size_t b = 0; b < report->backends.size(); ++b) {
    const Outcome& o = report->tests[0].results[b];
    SCOPED_TRACE(report->backends[b].label);
    EXPECT_EQ(o.state, State::flaky) << o.reason;
    ASSERT_EQ(o.attempts.size(), 2u);
    EXPECT_EQ(o.attempts[0].state, b == 0 ? State::crashed : State::error);
    EXPECT_EQ(o.attempts[1].state, State::passed) << o.attempts[1].reason;
  }

  // Without the re-check the first attempt stands alone, as it is: no flaky verdict.
  auto once = testing::run_parity(
      {"conformance", "--filter", "test_abs", "--backends", "cpu", "--no-recheck", "--json", json},
      {{"PARITY_TEST_FAULT", "run:segv:first@cpu"}}, 120);
  EXPECT_EQ(once.exit_code, 1) << once.output;
  auto single = report::read_conformance_file(json);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->tests[0].results[0].state, State::crashed);
  EXPECT_FALSE(single->tests[0].results[0].rechecked);
}

// Ctrl-C while `slow` hangs in its cell: the cut-off cell is no outcome (it used to be counted as
// an error), the report says interrupted, and only tests finished on every backend are listed.
TEST(ConformanceCli, AnInterruptedRunCountsNoCutOffTest) {
  PARITY_REQUIRE("onnx-testdata");
  testing::TempDir dir;
  const std::string json_path = fs::path(dir.path()).string() + "/cut.json";
  auto r =
      testing::run_parity_signalled({"conformance", "--filter", "test_abs", "--backends", "cpu,slow=cpu",
                                     "--no-recheck", "-j", "2", "--json", json_path},
                                    "parity: [1/", SIGINT, {{"PARITY_TEST_FAULT", "run:hang@slow"}}, 300);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.output;
  EXPECT_NE(r.output.find("interrupted: 0 of 1 tests finished"), std::string::npos) << r.output;
  std::ifstream in(json_path);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j.value("interrupted", false), true);
  EXPECT_EQ(j["tests_planned"], 1);
  EXPECT_TRUE(j["tests"].empty()) << j["tests"].dump();
  for (const auto& [label, counts] : j["summary"].items())
    EXPECT_EQ(counts.value("error", 0), 0) << label << ": " << counts.dump();
}

TEST(ConformanceCli, ListAndBadSuite) {
  PARITY_REQUIRE("onnx-testdata");
  auto list = testing::run_parity({"conformance", "--list", "--filter", "test_abs*"});
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("test_abs\n"), std::string::npos) << list.output;
  auto bad = testing::run_parity({"conformance", "--suite", "/nonexistent", "--backends", "cpu"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("libonnx-testdata"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace parity::conformance
