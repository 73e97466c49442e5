// Data-driven probe tests: every tests/fixtures/probe/*.json is one case (model, arguments,
// environment, expected exit code and per-backend verdicts). Adding a case needs no C++.
// Placeholders in args/env: {models} generated test models, {third_party} bootstrap folder,
// {source} repository root, {tmp} a fresh temp dir, {mock_icd} a Vulkan ICD manifest for
// Chromium's mock driver (no usable adapter).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_parity.h"

namespace parity {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(PARITY_FIXTURES) / "probe"))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string expand(std::string s, const std::map<std::string, std::string>& vars) {
  for (const auto& [key, value] : vars)
    for (auto pos = s.find(key); pos != std::string::npos; pos = s.find(key, pos + value.size()))
      s.replace(pos, key.size(), value);
  return s;
}

class ProbeFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ProbeFixture, MatchesExpectations) {
  const fs::path file = fs::path(PARITY_FIXTURES) / "probe" / (GetParam() + ".json");
  std::ifstream in(file);
  json fx = json::parse(in, nullptr, false);
  ASSERT_FALSE(fx.is_discarded()) << file << " is not valid JSON";

  testing::TempDir tmp;
  std::map<std::string, std::string> vars{{"{models}", PARITY_TEST_MODELS},
                                          {"{third_party}", PARITY_THIRD_PARTY},
                                          {"{source}", PARITY_SOURCE_DIR},
                                          {"{tmp}", tmp.path()}};
  vars["{mock_icd}"] = testing::write_mock_icd_manifest(tmp.path());
  const std::string json_out = tmp.path() + "/probe.json";
  std::vector<std::string> args{"probe"};
  for (const auto& a : fx.at("args")) args.push_back(expand(a.get<std::string>(), vars));
  const bool wants_json = fx["expect"].contains("backends");
  if (wants_json) args.insert(args.end(), {"--json", json_out, "--quiet"});
  std::vector<std::pair<std::string, std::string>> env;
  const json env_spec = fx.value("env", json::object());
  for (const auto& [k, v] : env_spec.items()) env.emplace_back(k, expand(v.get<std::string>(), vars));

  const auto result = testing::run_parity(args, env);
  const json& expect = fx["expect"];
  SCOPED_TRACE(fx.value("description", GetParam()) + "\n--- parity output ---\n" + result.output);
  EXPECT_EQ(result.signal, 0) << "parity itself must never die on a signal";
  EXPECT_EQ(result.exit_code, expect.value("exit", 0));
  for (const auto& needle : expect.value("output_contains", std::vector<std::string>{}))
    EXPECT_NE(result.output.find(needle), std::string::npos) << "output lacks: " << needle;
  if (!wants_json) return;

  std::ifstream jf(json_out);
  json report = json::parse(jf, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << "no JSON report written";
  EXPECT_EQ(report["schema"], "parity.probe/1");
  for (const auto& [label, want] : expect["backends"].items()) {
    const json* row = nullptr;
    for (const auto& b : report["backends"])
      if (b["name"] == label) row = &b;
    ASSERT_NE(row, nullptr) << "no row for backend " << label;
    SCOPED_TRACE("backend " + label + ": " + row->dump(1).substr(0, 3000));
    EXPECT_EQ((*row)["status"], want.at("status"));
    const json& error = (*row)["error"];
    auto expect_field = [&](const char* key, const char* field) {
      if (want.contains(key)) {
        EXPECT_EQ(error[field], want[key]) << key;
      }
    };
    expect_field("stage", "stage");
    expect_field("kind", "kind");
    expect_field("signal", "signal");
    auto expect_contains = [](const json& haystack, const json& needle) {
      ASSERT_TRUE(haystack.is_string()) << "expected text containing " << needle;
      EXPECT_NE(haystack.get<std::string>().find(needle.get<std::string>()), std::string::npos) << needle;
    };
    if (want.contains("message_contains")) {
      expect_contains(error["message"], want["message_contains"]);
    }
    if (want.contains("adapter_contains")) {
      expect_contains((*row)["adapter"], want["adapter_contains"]);
    }
    if (want.contains("ort_version")) {
      EXPECT_EQ((*row)["ort_version"], want["ort_version"]);
    }
    if (want.contains("failed_rule")) {
      bool found = false;
      for (const auto& o : (*row)["outputs"]) found = found || o["failed_rule"] == want["failed_rule"];
      EXPECT_TRUE(found) << "no output failed rule " << want["failed_rule"];
    }
    if (want.value("nodes_on_backend_positive", false)) {
      ASSERT_TRUE((*row)["nodes_on_backend"].is_number());
      EXPECT_GT((*row)["nodes_on_backend"].get<int>(), 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ProbeFixture, ::testing::ValuesIn(fixture_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace parity
