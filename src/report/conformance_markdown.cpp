#include "report/conformance_markdown.h"

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
  return out + buf;
}

std::string conformance_op_table(const ConformanceReport& r) {
  // op -> backend -> state -> count
  std::map<std::string, std::vector<std::map<State, int>>> by_op;
  for (const auto& t : r.tests) {
    auto& row = by_op[t.op];
    row.resize(r.backends.size());
    for (std::size_t b = 0; b < r.backends.size() && b < t.results.size(); ++b) ++row[b][t.results[b].state];
  }
  std::string out = "| op | tests |";
  for (const auto& b : r.backends) out += " " + backend_header(b) + " |";
  out += "\n|---|---|";
  for (std::size_t b = 0; b < r.backends.size(); ++b) out += "---|";
  out += "\n";
  for (const auto& [op, row] : by_op) {
    int n = 0;
    for (const auto& [s, c] : row.empty() ? std::map<State, int>{} : row[0]) n += c;
    out += "| " + cell(op, 80) + " | " + std::to_string(n) + " |";
    for (const auto& counts : row) {
      int total = 0, passed = 0;
      for (const auto& [s, c] : counts) {
        total += c;
        if (s == State::passed) passed = c;
      }
      if (total == 0) {
        out += " — |";
        continue;
      }
      std::string text = std::to_string(passed) + "/" + std::to_string(total);
      for (State s : kAllStates) {
        if (s == State::passed) continue;
        auto it = counts.find(s);
        if (it == counts.end() || it->second == 0) continue;
        std::string name(to_string(s));
        if (is_bad(s)) name = "**" + name + "**";  // what a reader scans for
        text += " " + std::to_string(it->second) + " " + name;
      }
      out += " " + text + " |";
    }
    out += "\n";
  }
  return out;
}

std::string conformance_failures(const ConformanceReport& r) {
  std::string out =
      "| test | op | backend | state | rule | max_abs | nodes EP/CPU | message "
      "|\n|---|---|---|---|---|---|---|---|\n";
  int n = 0;
  for (const auto& t : r.tests) {
    for (std::size_t b = 0; b < r.backends.size() && b < t.results.size(); ++b) {
      const Outcome& o = t.results[b];
      if (!is_bad(o.state)) continue;
      ++n;
      char max_abs[32] = "-";
      if (o.comparison) std::snprintf(max_abs, sizeof max_abs, "%.3g", o.comparison->max_abs);
      out += "| " + cell(t.name) + " | " + cell(t.op, 60) + " | " + r.backends[b].label + " | " +
             std::string(to_string(o.state)) + " | " + (o.failed_rule.empty() ? "-" : o.failed_rule) + " | " +
             max_abs + " | " + std::to_string(o.nodes_on_backend) + "/" + std::to_string(o.nodes_on_cpu) +
             " | " + cell(o.reason) + " |\n";
    }
  }
  if (n == 0) return "No test failed, crashed, timed out or errored.\n";
  return out;
}

std::string conformance_markdown(const ConformanceReport& r) {
  std::string out = "# Conformance: " + r.suite + "\n\n";
  char buf[128];
  std::snprintf(buf, sizeof buf, "Float outputs: |a - e| <= %g + %g * |e|; other types exact.\n\n",
                r.tolerance.atol, r.tolerance.rtol);
  out += buf;
  out += "## Summary\n\n" + conformance_summary(r) + "\n## Failures\n\n" + conformance_failures(r) +
         "\n## Per op\n\n" + conformance_op_table(r);
  return out;
}

}  // namespace parity::report
