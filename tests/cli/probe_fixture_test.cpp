// Data-driven probe tests: every tests/fixtures/probe/*.json is one case (model, arguments,
// environment, expected exit code and per-backend verdicts). Adding a case needs no C++.
// Placeholders in args/env: {models} generated test models, {third_party} bootstrap folder,
// {source} repository root, {tmp} a fresh temp dir, {mock_icd} a Vulkan ICD manifest for
// Chromium's mock driver (no usable adapter). Rows may check properties_contain {key: text} on
// the backend's reported properties (browser backends: placement, bundle, adapter, ...).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/fixtures.h"

namespace parity {
namespace {

using nlohmann::json;

class ProbeFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ProbeFixture, MatchesExpectations) {
  json fx = testing::load_fixture("probe", GetParam());
  ASSERT_FALSE(fx.is_discarded()) << GetParam() << ".json is not valid JSON";

  testing::TempDir tmp;
  const auto vars = testing::fixture_vars(tmp.str());
  const std::string json_out = tmp.str() + "/probe.json";
  const bool wants_json = fx["expect"].contains("backends");
  std::vector<std::string> extra;
  if (wants_json) extra = {"--json", json_out, "--quiet"};
  // Clean hands: every case, the crashing and hanging ones included, runs with a temp directory
  // of its own that must be as empty afterwards as before (workers' scratch, ORT profiles and
  // telemetry logs, browser profiles all belong to the parent and go with it).
  const std::filesystem::path own_tmp = tmp.path() / "tmpdir";
  std::filesystem::create_directory(own_tmp);
  if (!fx.contains("env")) fx["env"] = json::object();
  if (!fx["env"].contains("TMPDIR")) fx["env"]["TMPDIR"] = own_tmp.string();
  const auto result = testing::run_fixture("probe", fx, vars, extra);
  const json& expect = fx["expect"];
  SCOPED_TRACE(fx.value("description", GetParam()) + "\n--- parity output ---\n" + result.output);
  EXPECT_EQ(result.signal, 0) << "parity itself must never die on a signal";
  for (const auto& left : std::filesystem::directory_iterator(own_tmp))
    ADD_FAILURE() << "the run left " << left.path().filename() << " in the temp directory";
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
    if (want.contains("properties_contain")) {
      for (const auto& [key, needle] : want["properties_contain"].items()) {
        SCOPED_TRACE("property " + key);
        expect_contains((*row)["properties"].value(key, json()), needle);
      }
    }
    if (want.value("nodes_on_backend_positive", false)) {
      ASSERT_TRUE((*row)["nodes_on_backend"].is_number());
      EXPECT_GT((*row)["nodes_on_backend"].get<int>(), 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ProbeFixture, ::testing::ValuesIn(testing::fixture_names("probe")),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace parity
