// The one data-driven runner for every verb: each tests/fixtures/<verb>/<case>.json (verb = probe,
// bisect, inspect, sweep, ...) is a test named <verb>_<case>. Adding a case needs no C++.
//
// A fixture is {"description", "args", "env", "requires", "expect"}; every key is checked, so a
// misspelt one fails the test instead of checking nothing. The runner adds `--json FILE`.
//   args, env         expanded: {models} generated test models, {third_party} bootstrap folder,
//                     {source} repository root, {tmp} a fresh temp dir, {mock_icd} a Vulkan ICD
//                     manifest for Chromium's mock driver (no usable adapter)
//   requires          tools the case needs (support/requirements.h): skipped where one is
//                     missing, failed under PARITY_CI=1
//   expect.exit, expect.output_contains    every verb
//   expect.json       {"/json/pointer": value}: values the --json report must hold, every verb
//   expect.<other>    the verb's own checks, listed in verb_checks() below
// Clean hands: every case runs with a TMPDIR of its own that must be empty afterwards (workers'
// scratch, ORT profiles, browser profiles all go with the parent).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "support/fixtures.h"
#include "support/requirements.h"

namespace parity {
namespace {

using nlohmann::json;
using Vars = std::map<std::string, std::string>;

void expect_text_contains(const json& haystack, const json& needle) {
  ASSERT_TRUE(haystack.is_string()) << "expected text containing " << needle;
  EXPECT_NE(haystack.get<std::string>().find(needle.get<std::string>()), std::string::npos) << needle;
}

// --- probe: "backends": {LABEL: {status, stage, kind, signal, message_contains, ...}} ---------------

void check_probe_row(const json& row, const json& want) {
  EXPECT_EQ(row["status"], want.at("status"));
  const json& error = row["error"];
  for (const char* key : {"stage", "kind", "signal"})
    if (want.contains(key)) {
      EXPECT_EQ(error[key], want[key]) << key;
    }
  if (want.contains("message_contains")) expect_text_contains(error["message"], want["message_contains"]);
  if (want.contains("adapter_contains")) expect_text_contains(row["adapter"], want["adapter_contains"]);
  if (want.contains("ort_version")) {
    EXPECT_EQ(row["ort_version"], want["ort_version"]);
  }
  if (want.contains("failed_rule")) {  // a rule, or a list of rules any of which may fire
    const json rules =
        want["failed_rule"].is_array() ? want["failed_rule"] : json::array({want["failed_rule"]});
    bool found = false;
    for (const auto& o : row["outputs"])
      for (const auto& rule : rules) found = found || o["failed_rule"] == rule;
    EXPECT_TRUE(found) << "no output failed rule " << want["failed_rule"];
  }
  const json properties = want.value("properties_contain", json::object());  // named: items() borrows it
  for (const auto& [key, needle] : properties.items()) {
    SCOPED_TRACE("property " + key);
    expect_text_contains(row["properties"].value(key, json()), needle);
  }
  if (want.value("nodes_on_backend_positive", false)) {
    ASSERT_TRUE(row["nodes_on_backend"].is_number());
    EXPECT_GT(row["nodes_on_backend"].get<int>(), 0);
  }
}

void check_probe(const json& expect, const json& report, const Vars&) {
  const json backends = expect.value("backends", json::object());
  for (const auto& [label, want] : backends.items()) {
    const json* row = nullptr;
    for (const auto& b : report["backends"])
      if (b["name"] == label) row = &b;
    ASSERT_NE(row, nullptr) << "no row for backend " << label;
    SCOPED_TRACE("backend " + label + ": " + row->dump(1).substr(0, 3000));
    check_probe_row(*row, want);
  }
}

std::vector<std::string> probe_row_keys() {
  return {"status",
          "stage",
          "kind",
          "signal",
          "message_contains",
          "adapter_contains",
          "ort_version",
          "failed_rule",
          "properties_contain",
          "nodes_on_backend_positive"};
}

// --- bisect: first_divergent, isolation, method, skipped_contains, tensor_rules, max_backend_runs,
// repro_contains, verify ------------------------------------------------------------------------------

void check_bisect_tensors(const json& expect, const json& report) {
  if (expect.contains("skipped_contains")) {
    bool found = false;
    for (const auto& s : report["skipped_subgraphs"])
      found = found ||
              s.get<std::string>().find(expect["skipped_contains"].get<std::string>()) != std::string::npos;
    EXPECT_TRUE(found) << "no skipped subgraph mentions " << expect["skipped_contains"];
  }
  const json rules = expect.value("tensor_rules", json::object());  // named: items() borrows it
  for (const auto& [tensor, rule] : rules.items()) {
    bool found = false;
    for (const auto& t : report["tensors"])
      if (t["name"] == tensor) {
        found = true;
        EXPECT_EQ(t.value("failed_rule", ""), rule) << "tensor " << tensor;
      }
    EXPECT_TRUE(found) << "no tensor " << tensor;
  }
}

// "repro_contains": {"README.md": ["needle", ...]}: files of the repro folder --out wrote.
void check_repro_files(const json& expect, const json& report, const Vars& vars) {
  const json files = expect.value("repro_contains", json::object());
  for (const auto& [file, needles] : files.items()) {
    ASSERT_TRUE(report["repro_dir"].is_string()) << "no repro folder written";
    std::ifstream in(report["repro_dir"].get<std::string>() + "/" + file);
    ASSERT_TRUE(in) << "repro folder lacks " << file;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& needle : needles) {
      const std::string n = testing::expand(needle.get<std::string>(), vars);
      EXPECT_NE(text.find(n), std::string::npos) << file << " lacks: " << n;
    }
  }
}

// "verify": {"args": [...], "exit": N, "output_contains": [...]} or a list of them.
void run_verifies(const json& expect, const Vars& vars) {
  const json verifies = expect.contains("verify") && expect["verify"].is_object()
                            ? json::array({expect["verify"]})
                            : expect.value("verify", json::array());
  for (const json& v : verifies) {
    for (const auto& k :
         testing::unknown_keys(v, {"args", "env", "exit", "output_contains"}, "expect.verify."))
      ADD_FAILURE() << "unknown fixture key " << k;
    const auto verify = testing::run_fixture("verify", v, vars);
    SCOPED_TRACE("--- verify output ---\n" + verify.output);
    EXPECT_EQ(verify.exit_code, v.value("exit", 1));
    for (const auto& needle : v.value("output_contains", std::vector<std::string>{}))
      EXPECT_NE(verify.output.find(needle), std::string::npos) << "verify output lacks: " << needle;
  }
}

void check_bisect(const json& expect, const json& report, const Vars& vars) {
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
  const json isolation = expect.value("isolation", json::object());  // named: items() borrows it
  for (const auto& [k, v] : isolation.items()) EXPECT_EQ(report["isolation"][k], v) << "isolation." << k;
  if (expect.contains("method")) {
    EXPECT_EQ(report["method"], expect["method"]);
  }
  if (expect.contains("max_backend_runs")) {
    EXPECT_LE(report["backend_runs"], expect["max_backend_runs"]);
  }
  check_bisect_tensors(expect, report);
  check_repro_files(expect, report, vars);
  run_verifies(expect, vars);
}

// --- the verb table ----------------------------------------------------------------------------------

struct VerbChecks {
  std::string schema;                    // the report's "schema"
  std::vector<std::string> expect_keys;  // the verb's own expect keys
  void (*check)(const json& expect, const json& report, const Vars& vars) = nullptr;
};

const std::map<std::string, VerbChecks>& verb_checks() {
  static const std::map<std::string, VerbChecks> table{
      {"probe", {"parity.probe/1", {"backends"}, check_probe}},
      {"bisect",
       {"parity.bisect/1",
        {"first_divergent", "isolation", "method", "skipped_contains", "tensor_rules", "max_backend_runs",
         "repro_contains", "verify"},
        check_bisect}},
      {"inspect", {"parity.inspect/1", {}, nullptr}},
      {"sweep", {"parity.sweep/1", {}, nullptr}},
      {"manifest", {"parity.manifest-verify/1", {}, nullptr}},  // `manifest verify` (args start with it)
  };
  return table;
}

struct Case {
  std::string verb, name;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& [verb, checks] : verb_checks())
    for (const auto& name : testing::fixture_names(verb)) cases.push_back({verb, name});
  return cases;
}

std::vector<std::string> unknown_fixture_keys(const json& fx, const VerbChecks& checks) {
  auto unknown = testing::unknown_keys(fx, {"description", "args", "env", "requires", "expect"}, "");
  std::vector<std::string> known{"exit", "output_contains", "json"};
  known.insert(known.end(), checks.expect_keys.begin(), checks.expect_keys.end());
  const json& expect = fx["expect"];
  for (const auto& k : testing::unknown_keys(expect, known, "expect.")) unknown.push_back(k);
  const json backends = expect.value("backends", json::object());  // named: items() borrows it
  for (const auto& [label, want] : backends.items())
    for (const auto& k : testing::unknown_keys(want, probe_row_keys(), "expect.backends." + label + "."))
      unknown.push_back(k);
  return unknown;
}

void check_report(const json& expect, const std::string& path, const VerbChecks& checks, const Vars& vars) {
  std::ifstream in(path);
  const json report = json::parse(in, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << "no JSON report written";
  SCOPED_TRACE("report: " + report.dump(1).substr(0, 6000));
  EXPECT_EQ(report["schema"], checks.schema);
  const json pointers = expect.value("json", json::object());  // named: items() borrows it
  for (const auto& [pointer, want] : pointers.items()) {
    const json::json_pointer p(pointer);
    ASSERT_TRUE(report.contains(p)) << "report has no " << pointer;
    EXPECT_EQ(report[p], want) << pointer;
  }
  if (checks.check) checks.check(expect, report, vars);
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.verb << "/" << c.name; }

class VerbFixture : public ::testing::TestWithParam<Case> {};

TEST_P(VerbFixture, Matches) {
  const auto& [verb, name] = GetParam();
  const VerbChecks& checks = verb_checks().at(verb);
  json fx = testing::load_fixture(verb, name);
  ASSERT_FALSE(fx.is_discarded()) << verb << "/" << name << ".json is not valid JSON";
  for (const auto& requirement : fx.value("requires", std::vector<std::string>{}))
    PARITY_REQUIRE(requirement);
  for (const auto& k : unknown_fixture_keys(fx, checks)) ADD_FAILURE() << "unknown fixture key " << k;

  testing::TempDir tmp;
  const Vars vars = testing::fixture_vars(tmp.str());
  const std::string json_out = tmp.str() + "/report.json";
  const std::filesystem::path own_tmp = tmp.path() / "tmpdir";
  std::filesystem::create_directory(own_tmp);
  if (!fx.contains("env")) fx["env"] = json::object();
  if (!fx["env"].contains("TMPDIR")) fx["env"]["TMPDIR"] = own_tmp.string();
  const auto result = testing::run_fixture(verb, fx, vars, {"--json", json_out});
  const json& expect = fx["expect"];
  SCOPED_TRACE(fx.value("description", name) + "\n--- parity output ---\n" + result.output);
  EXPECT_EQ(result.signal, 0) << "parity itself must never die on a signal";
  for (const auto& left : std::filesystem::directory_iterator(own_tmp))
    ADD_FAILURE() << "the run left " << left.path().filename() << " in the temp directory";
  const int exit = expect.value("exit", 0);
  EXPECT_EQ(result.exit_code, exit);
  for (const auto& needle : expect.value("output_contains", std::vector<std::string>{}))
    EXPECT_NE(result.output.find(needle), std::string::npos) << "output lacks: " << needle;
  if (exit == 0 || exit == 1) check_report(expect, json_out, checks, vars);  // 2 and 3 write no report
}

INSTANTIATE_TEST_SUITE_P(Fixtures, VerbFixture, ::testing::ValuesIn(all_cases()),
                         [](const auto& test) { return test.param.verb + "_" + test.param.name; });

}  // namespace
}  // namespace parity
