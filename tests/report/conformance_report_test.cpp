// Diff, expectations, JSON round trip and Markdown views of a conformance report (report/conformance_*).
#include <gtest/gtest.h>

#include "conformance/diff.h"
#include "report/conformance_document.h"
#include "report/conformance_json.h"

namespace parity::conformance {
namespace {

Outcome outcome(State s, std::string reason = {}) {
  Outcome o;
  o.state = s;
  o.reason = std::move(reason);
  return o;
}

// Two backends (cpu, webgpu); tests given as {name, op, cpu state, webgpu state}.
ConformanceReport make_report(const std::vector<std::tuple<std::string, std::string, State, State>>& rows) {
  ConformanceReport r;
  r.suite = "/suite";
  r.backends = {{"cpu", "cpu", "", true, "1.30.0", ""},
                {"webgpu", "webgpu", "", false, "1.30.0", "SwiftShader"}};
  for (const auto& [name, op, cpu, webgpu] : rows) {
    TestReport t;
    t.name = name;
    t.op = op;
    t.ops = {op};
    t.opset = 17;
    t.results = {outcome(cpu), outcome(webgpu, "why " + name)};
    r.tests.push_back(std::move(t));
  }
  return r;
}

TEST(Diff, ListsChangesAndFlagsRegressions) {
  auto a = make_report({{"test_a", "Abs", State::passed, State::passed},
                        {"test_b", "Add", State::passed, State::not_supported},
                        {"test_c", "Cos", State::passed, State::failed},
                        {"test_gone", "Abs", State::passed, State::passed}});
  auto b = make_report({{"test_a", "Abs", State::passed, State::failed},
                        {"test_b", "Add", State::passed, State::crashed},
                        {"test_c", "Cos", State::passed, State::passed},
                        {"test_new", "Abs", State::passed, State::passed}});
  auto d = diff_reports(a, b);
  ASSERT_TRUE(d.ok()) << d.error().describe();
  ASSERT_EQ(d->changes.size(), 3u);
  EXPECT_EQ(d->regressions(), 2);
  EXPECT_TRUE(d->changes[0].regression);  // regressions sort first
  EXPECT_EQ(d->changes[2].test, "test_c");
  EXPECT_FALSE(d->changes[2].regression);
  EXPECT_EQ(d->only_in_a, std::vector<std::string>{"test_gone"});
  EXPECT_EQ(d->only_in_b, std::vector<std::string>{"test_new"});
  const std::string table = diff_table(*d);
  EXPECT_NE(table.find("| test_a | Abs | webgpu | passed | failed | **yes**"), std::string::npos) << table;
  EXPECT_NE(table.find("2 regressed"), std::string::npos);
}

TEST(Diff, ExplicitPairsCompareDifferentLabels) {
  auto a = make_report({{"test_a", "Abs", State::passed, State::failed}});
  auto b = make_report({{"test_a", "Abs", State::passed, State::failed}});
  auto d = diff_reports(a, b, {{"cpu", "webgpu"}});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->changes.size(), 1u);
  EXPECT_EQ(d->changes[0].backend_b, "webgpu");
  EXPECT_TRUE(d->changes[0].regression);
  EXPECT_FALSE(diff_reports(a, b, {{"cpu", "cuda"}}).ok());
}

TEST(Diff, RegressionRule) {
  EXPECT_TRUE(is_regression(State::passed, State::not_supported));
  EXPECT_TRUE(is_regression(State::not_supported, State::failed));
  EXPECT_TRUE(is_regression(State::skipped, State::crashed));
  EXPECT_FALSE(is_regression(State::failed, State::crashed));
  EXPECT_FALSE(is_regression(State::failed, State::passed));
  EXPECT_FALSE(is_regression(State::not_supported, State::skipped));
}

TEST(Expectations, BrokenOnesNameTheTestAndDirection) {
  auto r = make_report(
      {{"test_a", "Abs", State::passed, State::failed}, {"test_b", "Add", State::passed, State::passed}});
  Expectations e{{"test_a", {{"cpu", "passed"}, {"webgpu", "passed"}}},
                 {"test_b", {{"webgpu", "failed"}}},
                 {"test_missing", {{"cpu", "passed"}}}};
  e["test_b"]["cuda"] = "passed";
  auto broken = check_expectations(r, e);
  ASSERT_EQ(broken.size(), 4u);
  EXPECT_NE(broken[0].find("test_a on webgpu: expected passed, got failed (it no longer passes): why test_a"),
            std::string::npos)
      << broken[0];
  EXPECT_NE(broken[1].find("backend 'cuda' was not run"), std::string::npos) << broken[1];
  EXPECT_NE(broken[2].find("test_b on webgpu: expected failed, got passed (it passes now"), std::string::npos)
      << broken[2];
  EXPECT_NE(broken[3].find("test_missing"), std::string::npos);
  EXPECT_TRUE(check_expectations(r, {{"test_b", {{"cpu", "passed"}}}}).empty());
}

TEST(Expectations, JsonRoundTripAndValidation) {
  auto r = make_report({{"test_a", "Abs", State::passed, State::not_supported}});
  auto e = expectations_from_json(expectations_to_json(r, "note"));
  ASSERT_TRUE(e.ok()) << e.error().describe();
  EXPECT_EQ((*e)["test_a"]["webgpu"], "not-supported");
  EXPECT_FALSE(
      expectations_from_json({{"schema", "parity.conformance-expect/1"}, {"tests", {{"t", {{"cpu", "ok"}}}}}})
          .ok());
  EXPECT_FALSE(expectations_from_json(nlohmann::json::object()).ok());
  auto flaky = expectations_from_json(
      {{"schema", "parity.conformance-expect/1"}, {"tests", {{"t", {{"cpu", "flaky"}}}}}});
  ASSERT_FALSE(flaky.ok()) << "flaky is never an expected state";
  EXPECT_NE(flaky.error().hint.find("failure to investigate"), std::string::npos);
}

TEST(ReportJson, FlakyKeepsBothAttempts) {
  Outcome first = outcome(State::timeout, "run: stalled");
  first.duration_ms = 10000;
  Outcome second = outcome(State::passed);
  second.duration_ms = 200;
  Outcome again = outcome(State::timeout, "run: stalled again");
  again.duration_ms = 10000;
  Outcome same = recheck_verdict(first, again);
  EXPECT_EQ(same.state, State::timeout);
  EXPECT_TRUE(same.rechecked);
  EXPECT_EQ(same.reason, "run: stalled") << "agreeing attempts keep the first one's words";
  ASSERT_EQ(same.attempts.size(), 2u) << "both attempts are kept, agreeing or not";
  EXPECT_EQ(same.attempts[1].reason, "run: stalled again");
  EXPECT_EQ(same.duration_ms, 20000);

  auto r = make_report({{"test_a", "Abs", State::passed, State::timeout}});
  r.tests[0].results[1] = recheck_verdict(first, second);
  const Outcome& flaky = r.tests[0].results[1];
  EXPECT_EQ(flaky.state, State::flaky);
  EXPECT_EQ(flaky.reason, "timeout, then passed on a fresh re-run: run: stalled");
  EXPECT_EQ(flaky.duration_ms, 10200);
  const auto j = report::conformance_to_json(r);
  EXPECT_EQ(j["summary"]["webgpu"]["flaky"], 1);
  EXPECT_EQ(j["tests"][0]["results"]["webgpu"]["attempts"][1]["state"], "passed");
  auto back = report::conformance_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  const Outcome& o = back->tests[0].results[1];
  EXPECT_EQ(o.state, State::flaky);
  EXPECT_TRUE(o.rechecked);
  ASSERT_EQ(o.attempts.size(), 2u);
  EXPECT_EQ(o.attempts[0].state, State::timeout);
  EXPECT_EQ(o.attempts[0].reason, "run: stalled");
  EXPECT_EQ(o.attempts[1].state, State::passed);
  EXPECT_TRUE(is_bad(State::flaky));
}

TEST(ReportJson, RoundTripsStatesMetricsAndErrors) {
  auto r = make_report({{"test_a", "Abs", State::passed, State::failed}});
  Comparison c;
  c.max_abs = 0.5;
  c.max_rel = INFINITY;
  c.elements_over_tol = 3;
  r.tests[0].results[1].comparison = c;
  r.tests[0].results[1].failed_rule = "allclose";
  r.tests[0].results[1].nodes_on_backend = 1;
  r.tests[0].results[0].error = make_error(ErrorKind::crashed, Stage::run, "boom");
  const auto j = report::conformance_to_json(r);
  EXPECT_EQ(j["schema"], kConformanceSchema);
  EXPECT_EQ(j["summary"]["webgpu"]["failed"], 1);
  EXPECT_EQ(j["tests"][0]["results"]["webgpu"]["metrics"]["max_rel"], "inf");
  auto back = report::conformance_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->tests.size(), 1u);
  const Outcome& o = back->tests[0].results[1];
  EXPECT_EQ(o.state, State::failed);
  EXPECT_EQ(o.failed_rule, "allclose");
  ASSERT_TRUE(o.comparison);
  EXPECT_EQ(o.comparison->max_abs, 0.5);
  EXPECT_TRUE(std::isinf(o.comparison->max_rel));
  EXPECT_EQ(o.nodes_on_backend, 1);
  ASSERT_TRUE(back->tests[0].results[0].error);
  EXPECT_EQ(back->tests[0].results[0].error->message, "boom");
  EXPECT_EQ(back->backends[1].adapter, "SwiftShader");
  EXPECT_FALSE(back->backends[1].allow_fallback);
  auto bad = j;
  bad["tests"][0]["results"]["cpu"]["state"] = "ok";
  EXPECT_FALSE(report::conformance_from_json(bad).ok());
  EXPECT_FALSE(report::conformance_from_json({{"schema", "parity.probe/1"}}).ok());
}

TEST(Markdown, OpTableCountsPerBackend) {
  auto r = make_report({{"test_abs", "Abs", State::passed, State::passed},
                        {"test_abs_2", "Abs", State::passed, State::failed},
                        {"test_add", "Add", State::passed, State::not_supported},
                        {"test_seq", "Seq|Op", State::skipped, State::skipped}});
  const std::string t = report::render_markdown(report::conformance_document(r), "r").text;
  EXPECT_NE(t.find("| op | tests | cpu (ORT 1.30.0) | webgpu (ORT 1.30.0) |"), std::string::npos) << t;
  EXPECT_NE(t.find("| **Abs** | 2 | 2/2 | 1/2 1 failed |"), std::string::npos) << t;
  EXPECT_NE(t.find("| **Add** | 1 | 1/1 | 0/1 1 not-supported |"), std::string::npos) << t;
  EXPECT_NE(t.find("| **Seq\\|Op** | 1 | 0/1 1 skipped | 0/1 1 skipped |"), std::string::npos) << t;
  EXPECT_NE(t.find("## Per op"), std::string::npos);
  EXPECT_NE(t.find("| test_abs_2 | Abs | webgpu | failed |"), std::string::npos) << t;
  const std::string s = report::conformance_summary(r);
  EXPECT_NE(s.find("| webgpu | 1.30.0 | off | 4 | 1 | 1 | 0 | 0 | 0 | 1 | 1 | 0 | SwiftShader |"),
            std::string::npos)
      << s;
  // The page colours each op's cell by its worst state.
  const std::string html = report::render_html(report::conformance_document(r));
  EXPECT_NE(html.find("<td class=\"verdict verdict-mismatch\"><span class=\"rule\">1/2 1 failed</span>"),
            std::string::npos)
      << html;
}

}  // namespace
}  // namespace parity::conformance
