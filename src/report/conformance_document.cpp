#include "report/conformance_document.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "backend/backend.h"

namespace parity::report {

using namespace ::parity::conformance;  // this file renders that module's types
namespace {

// Pipes would split a Markdown cell; newlines would end the row.
std::string cell(std::string s, std::size_t max_len = 160) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  if (out.size() > max_len) out = out.substr(0, max_len) + "…";
  return out;
}

// A cell of the report document (its renderers escape): one line at most `max_len` long.
std::string clip(std::string s, std::size_t max_len = 300) {
  if (s.size() > max_len) s = s.substr(0, max_len) + "…";
  return s;
}

std::string backend_header(const BackendInfo& b) {
  std::string h = b.label;
  if (!b.runtime_version.empty()) h += " (ORT " + b.runtime_version + ")";
  return h;
}

}  // namespace

std::string conformance_summary(const ConformanceReport& r) {
  std::string out = "| backend | ORT | fallback | tests |";
  for (State s : kAllStates) out += " " + std::string(to_string(s)) + " |";
  out += " adapter |\n|---|---|---|---|";
  for (std::size_t i = 0; i < std::size(kAllStates); ++i) out += "---|";
  out += "---|\n";
  for (std::size_t b = 0; b < r.backends.size(); ++b) {
    const auto& info = r.backends[b];
    out += "| " + info.label + " | " + (info.runtime_version.empty() ? "?" : info.runtime_version) + " | " +
           (backend::runs_on_cpu_kernels(info.ep) ? "n/a" : (info.allow_fallback ? "on" : "off")) + " | " +
           std::to_string(r.tests.size()) + " |";
    for (State s : kAllStates) out += " " + std::to_string(r.count(b, s)) + " |";
    out += " " + cell(info.adapter.empty() ? "-" : info.adapter) + " |\n";
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "\n%zu tests, wall %.1f s with %d jobs.\n", r.tests.size(), r.wall_s,
                r.jobs);
  out += buf;
  if (r.interrupted)
    out += fmt::format("interrupted: {} of {} tests finished on every backend; the rest have no outcome\n",
                       r.tests.size(), r.tests_planned);
  return out;
}

namespace {

// One op's cell on one backend: the text and the colour of its worst state.
Cell op_cell(const std::map<State, int>& counts) {
  int total = 0, passed = 0;
  bool bad = false;
  for (const auto& [s, c] : counts) {
    total += c;
    if (s == State::passed) passed = c;
    if (c > 0 && is_bad(s)) bad = true;
  }
  if (total == 0) return {"—"};
  std::string text = std::to_string(passed) + "/" + std::to_string(total);
  for (State s : kAllStates) {
    if (s == State::passed) continue;
    auto it = counts.find(s);
    if (it != counts.end() && it->second > 0)
      text += " " + std::to_string(it->second) + " " + std::string(to_string(s));
  }
  return Cell(text, bad ? "mismatch" : passed == total ? "match" : "inconclusive");
}

Table summary_table(const ConformanceReport& r) {
  Table t{"summary", {"backend", "ORT", "fallback", "tests"}, {}};
  for (State s : kAllStates) t.columns.emplace_back(to_string(s));
  t.columns.emplace_back("adapter");
  for (std::size_t b = 0; b < r.backends.size(); ++b) {
    const auto& info = r.backends[b];
    Row row{{{info.label},
             {info.runtime_version.empty() ? "?" : info.runtime_version},
             {backend::runs_on_cpu_kernels(info.ep) ? "n/a" : (info.allow_fallback ? "on" : "off")},
             {std::to_string(r.tests.size())}},
            {{"backend", info.label}},
            true};
    for (State s : kAllStates) {
      const int n = r.count(b, s);
      row.cells.push_back(Cell(std::to_string(n), n > 0 && is_bad(s) ? "mismatch" : ""));
    }
    row.cells.push_back({info.adapter.empty() ? "-" : info.adapter});
    t.rows.push_back(std::move(row));
  }
  return t;
}

Section failures_section(const ConformanceReport& r) {
  Table t{"failures", {"test", "op", "backend", "state", "rule", "max_abs", "nodes EP/CPU", "message"}, {}};
  for (const auto& test : r.tests)
    for (std::size_t b = 0; b < r.backends.size() && b < test.results.size(); ++b) {
      const Outcome& o = test.results[b];
      if (!is_bad(o.state)) continue;
      t.rows.push_back({{{test.name},
                         {test.op},
                         {r.backends[b].label},
                         Cell(std::string(to_string(o.state)), "mismatch"),
                         {o.failed_rule.empty() ? "-" : o.failed_rule},
                         {o.comparison ? fmt::format("{:.3g}", o.comparison->max_abs) : "-"},
                         {fmt::format("{}/{}", o.nodes_on_backend, o.nodes_on_cpu)},
                         {clip(o.reason)}},
                        {{"test", test.name}, {"backend", r.backends[b].label}}});
    }
  if (t.rows.empty()) return {"Failures", {}, {Paragraph{"No test failed, crashed, timed out or errored."}}};
  return {"Failures", {}, {std::move(t)}};
}

Section per_op_section(const ConformanceReport& r) {
  // op -> backend -> state -> count
  std::map<std::string, std::vector<std::map<State, int>>> by_op;
  for (const auto& t : r.tests) {
    auto& row = by_op[t.op];
    row.resize(r.backends.size());
    for (std::size_t b = 0; b < r.backends.size() && b < t.results.size(); ++b) ++row[b][t.results[b].state];
  }
  Table t{"ops", {"op", "tests"}, {}};
  for (const auto& b : r.backends) t.columns.push_back(backend_header(b));
  for (const auto& [op, counts] : by_op) {
    int n = 0;
    for (const auto& [s, c] : counts.empty() ? std::map<State, int>{} : counts[0]) n += c;
    Row row{{{op}, {std::to_string(n)}}, {{"op", op}}, true};
    for (const auto& per_backend : counts) row.cells.push_back(op_cell(per_backend));
    t.rows.push_back(std::move(row));
  }
  return {"Per op", {}, {std::move(t)}};
}

}  // namespace

Document conformance_document(const ConformanceReport& r) {
  return {
      "parity conformance: " + r.suite,
      fmt::format("{} tests, wall {:.1f} s with {} jobs; float outputs: |a - e| <= {:g} + {:g} * |e|, other "
                  "types exact; parity {}",
                  r.tests.size(), r.wall_s, r.jobs, r.tolerance.atol, r.tolerance.rtol, r.parity_version),
      {{"Summary", {}, {summary_table(r)}}, failures_section(r), per_op_section(r)}};
}

Document conformance_diff_document(const DiffResult& d, const std::string& a_path,
                                   const std::string& b_path) {
  Section changes{"Changes", {}, {}};
  if (d.changes.empty()) {
    changes.blocks.push_back(Paragraph{"No test changed state."});
  } else {
    Table t{"changes", {"test", "op", "backend", "before", "after", "regression", "message (after)"}, {}};
    for (const auto& c : d.changes) {
      const std::string after(to_string(c.after));
      t.rows.push_back({{{c.test},
                         {c.op},
                         {c.backend_a == c.backend_b ? c.backend_a : c.backend_a + " → " + c.backend_b},
                         {std::string(to_string(c.before))},
                         Cell(after, c.regression               ? "mismatch"
                                     : c.after == State::passed ? "match"
                                                                : ""),
                         {c.regression ? "yes" : "no"},
                         {clip(c.reason_after)}},
                        {{"test", c.test}, {"regression", c.regression ? "yes" : "no"}}});
    }
    changes.blocks.push_back(std::move(t));
  }
  std::string pairs;
  for (const auto& [a, b] : d.pairs) pairs += (pairs.empty() ? "" : ", ") + a + " → " + b;
  Section only{"Tests in one file only", {}, {}};
  if (!d.only_in_a.empty())
    only.blocks.push_back(
        Paragraph{"only in " + a_path + ": " + fmt::format("{}", fmt::join(d.only_in_a, ", "))});
  if (!d.only_in_b.empty())
    only.blocks.push_back(
        Paragraph{"only in " + b_path + ": " + fmt::format("{}", fmt::join(d.only_in_b, ", "))});
  return {"parity conformance diff",
          fmt::format("{} → {}; backends {}; {} changed, {} regressed", a_path, b_path, pairs,
                      d.changes.size(), d.regressions()),
          {std::move(changes), std::move(only)}};
}

}  // namespace parity::report
