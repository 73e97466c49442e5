// Data-driven bisect tests: every tests/fixtures/bisect/*.json is one case: `args` for
// `parity bisect` (the runner adds --json), `env`, and `expect`:
//   exit, output_contains          as for probe fixtures
//   first_divergent                {"node", "tensor", "op_type", "born_here", "weight_path"}, or null
//   isolation                      {"reproduces", "nodes"}
//   method                         "exposed" | "extracted"
//   skipped_contains               text one of skipped_subgraphs must contain
//   tensor_rules                   {"tensor": "failed_rule"} for tensors that must fail that rule
//   max_backend_runs               upper bound on backend_runs
//   verify                         {"args": [...], "exit": N, "output_contains": [...]} (or a list of
//                                  them): then runs `parity verify` with those args
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "support/fixtures.h"

namespace parity {
namespace {

using nlohmann::json;

class BisectFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(BisectFixture, MatchesExpectations) {
  json fx = testing::load_fixture("bisect", GetParam());
  ASSERT_FALSE(fx.is_discarded()) << GetParam() << ".json is not valid JSON";
  testing::TempDir tmp;
  const auto vars = testing::fixture_vars(tmp.str());
  const std::string json_out = tmp.str() + "/bisect.json";
  const auto result = testing::run_fixture("bisect", fx, vars, {"--json", json_out});
  const json& expect = fx["expect"];
  SCOPED_TRACE(fx.value("description", GetParam()) + "\n--- parity output ---\n" + result.output);
  EXPECT_EQ(result.signal, 0) << "parity itself must never die on a signal";
  EXPECT_EQ(result.exit_code, expect.value("exit", 0));
  for (const auto& needle : expect.value("output_contains", std::vector<std::string>{}))
    EXPECT_NE(result.output.find(needle), std::string::npos) << "output lacks: " << needle;
  if (expect.value("exit", 0) == 2) return;  // bad invocations write no report

  std::ifstream jf(json_out);
  json report = json::parse(jf, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << "no JSON report written";
  SCOPED_TRACE("report: " + report.dump(1).substr(0, 6000));
  EXPECT_EQ(report["schema"], "parity.bisect/1");
  for (const char* key : {"first_divergent", "tensors", "backend_runs", "isolation", "repro_dir"})
    EXPECT_TRUE(report.contains(key)) << "JSON contract field missing: " << key;
  if (expect.contains("first_divergent")) {
    const json& want = expect["first_divergent"];
    const json& got = report["first_divergent"];
    if (want.is_null()) {
      EXPECT_TRUE(got.is_null());
    } else {
      ASSERT_TRUE(got.is_object()) << "no first_divergent";
      for (const auto& [k, v] : want.items()) EXPECT_EQ(got[k], v) << "first_divergent." << k;
    }
  }
  if (expect.contains("isolation")) {
    for (const auto& [k, v] : expect["isolation"].items()) {
      EXPECT_EQ(report["isolation"][k], v) << "isolation." << k;
    }
  }
  if (expect.contains("method")) {
    EXPECT_EQ(report["method"], expect["method"]);
  }
  if (expect.contains("skipped_contains")) {
    bool found = false;
    for (const auto& s : report["skipped_subgraphs"])
      found = found ||
              s.get<std::string>().find(expect["skipped_contains"].get<std::string>()) != std::string::npos;
    EXPECT_TRUE(found) << "no skipped subgraph mentions " << expect["skipped_contains"];
  }
  const json rules = expect.value("tensor_rules", json::object());  // named: items() must not outlive it
  for (const auto& [tensor, rule] : rules.items()) {
    bool found = false;
    for (const auto& t : report["tensors"])
      if (t["name"] == tensor) {
        found = true;
        EXPECT_EQ(t.value("failed_rule", ""), rule) << "tensor " << tensor;
      }
    EXPECT_TRUE(found) << "no tensor " << tensor;
  }
  if (expect.contains("max_backend_runs")) {
    EXPECT_LE(report["backend_runs"], expect["max_backend_runs"]);
  }
  // "repro_contains": {"README.md": ["needle", ...]}: files of the repro folder --out wrote.
  const json repro_contains = expect.value("repro_contains", json::object());  // named: items() borrows it
  for (const auto& [file, needles] : repro_contains.items()) {
    ASSERT_TRUE(report["repro_dir"].is_string()) << "no repro folder written";
    const std::string path = report["repro_dir"].get<std::string>() + "/" + file;
    std::ifstream in(path);
    ASSERT_TRUE(in) << "repro folder lacks " << file;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& needle : needles) {
      const std::string n = testing::expand(needle.get<std::string>(), vars);
      EXPECT_NE(text.find(n), std::string::npos) << file << " lacks: " << n;
    }
  }
  const json verifies = expect.contains("verify") && expect["verify"].is_object()
                            ? json::array({expect["verify"]})
                            : expect.value("verify", json::array());
  for (const json& v : verifies) {
    const auto verify = testing::run_fixture("verify", v, vars);
    SCOPED_TRACE("--- verify output ---\n" + verify.output);
    EXPECT_EQ(verify.exit_code, v.value("exit", 1));
    for (const auto& needle : v.value("output_contains", std::vector<std::string>{}))
      EXPECT_NE(verify.output.find(needle), std::string::npos) << "verify output lacks: " << needle;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BisectFixture, ::testing::ValuesIn(testing::fixture_names("bisect")),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace parity
