#include "conformance/diff.h"

#include <algorithm>
#include <set>

namespace parity::conformance {
namespace {

constexpr const char* kExpectSchema = "parity.conformance-expect/1";

std::optional<std::size_t> backend_index(const ConformanceReport& r, const std::string& label) {
  for (std::size_t i = 0; i < r.backends.size(); ++i)
    if (r.backends[i].label == label) return i;
  return std::nullopt;
}

Error bad(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

}  // namespace

bool is_regression(State before, State after) {
  if (before == after) return false;
  if (before == State::passed) return true;
  return is_bad(after) && !is_bad(before);
}

int DiffResult::regressions() const {
  return static_cast<int>(
      std::count_if(changes.begin(), changes.end(), [](const StateChange& c) { return c.regression; }));
}

Result<DiffResult> diff_reports(const ConformanceReport& a, const ConformanceReport& b,
                                std::vector<std::pair<std::string, std::string>> pairs) {
  if (pairs.empty()) {
    for (const auto& ba : a.backends)
      if (backend_index(b, ba.label)) pairs.emplace_back(ba.label, ba.label);
    if (pairs.empty() && a.backends.size() == 1 && b.backends.size() == 1)
      pairs.emplace_back(a.backends[0].label, b.backends[0].label);
    if (pairs.empty())
      return bad("the two results share no backend label",
                 "name the pairs to compare: --pair A_LABEL=B_LABEL (e.g. --pair cpu=old)");
  }
  std::vector<std::pair<std::size_t, std::size_t>> idx;
  for (const auto& [la, lb] : pairs) {
    auto ia = backend_index(a, la);
    auto ib = backend_index(b, lb);
    if (!ia) return bad("backend '" + la + "' is not in the first result");
    if (!ib) return bad("backend '" + lb + "' is not in the second result");
    idx.emplace_back(*ia, *ib);
  }
  DiffResult d;
  d.pairs = pairs;
  std::map<std::string, const TestReport*> in_b;
  for (const auto& t : b.tests) in_b[t.name] = &t;
  std::set<std::string> seen;
  for (const auto& ta : a.tests) {
    seen.insert(ta.name);
    auto it = in_b.find(ta.name);
    if (it == in_b.end()) {
      d.only_in_a.push_back(ta.name);
      continue;
    }
    const TestReport& tb = *it->second;
    for (std::size_t p = 0; p < idx.size(); ++p) {
      const auto [ia, ib] = idx[p];
      if (ia >= ta.results.size() || ib >= tb.results.size()) continue;
      const Outcome& oa = ta.results[ia];
      const Outcome& ob = tb.results[ib];
      if (oa.state == ob.state) continue;
      d.changes.push_back({ta.name, ta.op, pairs[p].first, pairs[p].second, oa.state, ob.state, ob.reason,
                           is_regression(oa.state, ob.state)});
    }
  }
  for (const auto& tb : b.tests)
    if (!seen.count(tb.name)) d.only_in_b.push_back(tb.name);
  std::stable_sort(d.changes.begin(), d.changes.end(),
                   [](const StateChange& x, const StateChange& y) { return x.regression && !y.regression; });
  return d;
}

std::string diff_table(const DiffResult& d) {
  std::string out;
  if (d.changes.empty()) {
    out = "No test changed state.\n";
  } else {
    out =
        "| test | op | backend | before | after | regression | message (after) "
        "|\n|---|---|---|---|---|---|---|\n";
    for (const auto& c : d.changes) {
      const std::string label = c.backend_a == c.backend_b ? c.backend_a : c.backend_a + " → " + c.backend_b;
      std::string reason = c.reason_after;
      for (char& ch : reason)
        if (ch == '|' || ch == '\n') ch = ' ';
      if (reason.size() > 140) reason = reason.substr(0, 140) + "…";
      out += "| " + c.test + " | " + c.op + " | " + label + " | " + std::string(to_string(c.before)) + " | " +
             std::string(to_string(c.after)) + " | " + (c.regression ? "**yes**" : "no") + " | " + reason +
             " |\n";
    }
  }
  out +=
      "\n" + std::to_string(d.changes.size()) + " changed, " + std::to_string(d.regressions()) + " regressed";
  if (!d.only_in_a.empty()) out += ", " + std::to_string(d.only_in_a.size()) + " only in the first file";
  if (!d.only_in_b.empty()) out += ", " + std::to_string(d.only_in_b.size()) + " only in the second file";
  return out + ".\n";
}

Result<Expectations> expectations_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("schema", "") != kExpectSchema || !j.contains("tests") ||
      !j["tests"].is_object())
    return bad(std::string("not a ") + kExpectSchema + " document", "write one with --write-expect FILE");
  Expectations e;
  for (const auto& [test, per_backend] : j["tests"].items()) {
    if (!per_backend.is_object()) return bad("expectation of " + test + " is not an object");
    for (const auto& [label, state] : per_backend.items()) {
      if (!state.is_string() || !state_from_string(state.get<std::string>()))
        return bad("expectation of " + test + " on " + label + " is not a state name");
      if (state.get<std::string>() == to_string(State::flaky))
        return bad("expectation of " + test + " on " + label + " is 'flaky'",
                   "flaky is a failure to investigate, never an expected state: record what the test "
                   "does once it is deterministic");
      e[test][label] = state.get<std::string>();
    }
  }
  if (e.empty()) return bad("the expectations list no test");
  return e;
}

nlohmann::json expectations_to_json(const ConformanceReport& r, const std::string& note) {
  nlohmann::json tests = nlohmann::json::object();
  for (const auto& t : r.tests)
    for (std::size_t b = 0; b < r.backends.size() && b < t.results.size(); ++b)
      tests[t.name][r.backends[b].label] = std::string(to_string(t.results[b].state));
  return {{"schema", kExpectSchema}, {"note", note}, {"tests", tests}};
}

std::vector<std::string> check_expectations(const ConformanceReport& r, const Expectations& expected) {
  std::vector<std::string> broken;
  std::map<std::string, const TestReport*> by_name;
  for (const auto& t : r.tests) by_name[t.name] = &t;
  for (const auto& [test, per_backend] : expected) {
    auto it = by_name.find(test);
    if (it == by_name.end()) {
      broken.push_back(test + ": expected in the run but not found in the suite (renamed or removed?)");
      continue;
    }
    for (const auto& [label, state] : per_backend) {
      auto bi = backend_index(r, label);
      if (!bi) {
        broken.push_back(test + " on " + label + ": backend '" + label + "' was not run");
        continue;
      }
      const Outcome& o = it->second->results[*bi];
      const std::string got(to_string(o.state));
      if (got == state) continue;
      std::string what = test + " on " + label + ": expected " + state + ", got " + got;
      if (state == "passed" && got != "passed")
        what += " (it no longer passes)";
      else if (got == "passed")
        what += " (it passes now: update the expectation if the fix is real)";
      if (!o.reason.empty()) what += ": " + o.reason;
      broken.push_back(std::move(what));
    }
  }
  return broken;
}

}  // namespace parity::conformance
