#include "report/lint_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "core/text.h"
#include "report/table_text.h"

namespace parity::report {
namespace {

using lint::Severity;

std::string backends_text(const lint::LintHit& h) {
  std::string s;
  for (const auto& a : h.backends) {
    if (a.backend.empty()) continue;
    if (!s.empty()) s += ", ";
    s += a.backend + (a.version.empty() ? "" : " " + a.version) +
         (a.severity == h.severity ? "" : " (" + std::string(lint::to_string(a.severity)) + ")");
  }
  return s.empty() ? "all" : s;
}

// "pool +32": the first node of a hit and how many more.
std::string node_list_text(const std::vector<std::string>& nodes) {
  if (nodes.empty()) return "-";
  std::string s = nodes.front();
  if (nodes.size() > 1) s += fmt::format(" +{}", nodes.size() - 1);
  return s;
}

std::string tone_of(Severity s) {
  switch (s) {
    case Severity::error: return "mismatch";
    case Severity::warning: return "inconclusive";
    case Severity::info: return "reference";
  }
  return "";
}

std::string result_line(const lint::LintReport& r) {
  return fmt::format("{}{} error(s), {} warning(s), {} fixed or harmless here",
                     r.unchecked.empty() ? "" : "could not check (no session ran); ",
                     r.count(Severity::error), r.count(Severity::warning), r.count(Severity::info));
}

}  // namespace

Document lint_document(const lint::LintReport& r) {
  Table sessions{
      "backends", {"backend", "session", "runtime", "adapter", "nodes EP/CPU", "left to the CPU"}, {}};
  for (const auto& c : r.checks) {
    std::string cpu;
    for (const auto& [node, op] : c.cpu_nodes) cpu += (cpu.empty() ? "" : ", ") + node + " (" + op + ")";
    sessions.rows.push_back({{{c.label},
                              c.error ? Cell("failed", "error", first_line(c.error->message))
                                      : Cell(c.ran ? "ran" : "not run", c.ran ? "match" : ""),
                              {c.version.empty() ? "?" : c.version},
                              {c.adapter.empty() ? "-" : c.adapter},
                              {nodes_text(c.ep, c.nodes_on_backend, c.nodes_on_cpu)},
                              {cpu.empty() ? "-" : cpu}},
                             {{"backend", c.label}}});
  }
  Document doc{"parity lint " + std::filesystem::path(r.model).filename().string(),
               fmt::format("{}; backends {}{}; {}", r.model, fmt::join(r.scope, ", "),
                           r.live ? " (one session each)" : " (from the file; no session)", result_line(r)),
               {{"Sessions", {}, {}}}};
  if (sessions.rows.empty())
    doc.sections[0].blocks.push_back(Paragraph{
        "no session ran: linted from the file alone (with --backends, one session runs per backend)"});
  else
    doc.sections[0].blocks.push_back(std::move(sessions));
  Table hits{"hits", {"severity", "rule", "backends", "nodes", "detail"}, {}};
  for (const auto& h : r.hits)
    hits.rows.push_back({{Cell(std::string(lint::to_string(h.severity)), tone_of(h.severity)),
                          {h.rule},
                          {backends_text(h)},
                          {node_list_text(h.nodes)},
                          {h.detail}},
                         {{"rule", h.rule}}});
  Section findings{"Findings", {}, {}};
  if (hits.rows.empty())
    findings.blocks.push_back(Paragraph{"no rule fired"});
  else
    findings.blocks.push_back(std::move(hits));
  doc.sections.push_back(std::move(findings));
  for (const auto& h : r.hits) {
    Section s{h.rule + ": " + h.title, {{"rule", h.rule}}, {Paragraph{"why: " + h.why}}};
    Table affected{"affected", {"backend", "severity", "basis"}, {}};
    for (const auto& a : h.backends)
      affected.rows.push_back({{{a.backend.empty() ? "every backend" : a.backend},
                                Cell(std::string(lint::to_string(a.severity)), tone_of(a.severity)),
                                {a.basis}}});
    if (!affected.rows.empty()) s.blocks.push_back(std::move(affected));
    if (!h.nodes.empty())
      s.blocks.push_back(Paragraph{fmt::format("nodes: {}", fmt::join(h.nodes, ", ")), "note"});
    s.blocks.push_back(Paragraph{"fix: " + h.fix});
    if (!h.evidence.empty())
      s.blocks.push_back(
          Paragraph{"evidence: " + h.evidence + " (its repro, and every run in finding.json)", "note"});
    doc.sections.push_back(std::move(s));
  }
  if (!r.unchecked.empty()) doc.sections.push_back({"Could not check", {}, {BulletList{r.unchecked}}});
  if (!r.notes.empty()) doc.sections.push_back({"Notes", {}, {BulletList{r.notes}}});
  return doc;
}

std::string lint_text(const lint::LintReport& r) {
  std::string out = fmt::format("parity lint {}", r.model);
  std::string scope;
  for (const auto& s : r.scope) scope += (scope.empty() ? "" : ", ") + s;
  out += fmt::format("\n  backends: {}{}\n", scope,
                     r.live ? " (one session each)" : " (from the file; no session)");
  for (const auto& c : r.checks) {
    if (c.error) {
      out += fmt::format("  {}: session failed: {}\n", c.label, first_line(c.error->message));
    } else {
      out += fmt::format("  {}: ran, runtime {}{}, nodes {}\n", c.label, c.version.empty() ? "?" : c.version,
                         c.adapter.empty() ? "" : ", adapter " + c.adapter,
                         nodes_text(c.ep, c.nodes_on_backend, c.nodes_on_cpu));
    }
  }
  out += "\n";
  if (r.hits.empty()) {
    out += "no rule fired\n";
  } else {
    std::vector<std::vector<std::string>> rows{{"SEVERITY", "RULE", "BACKENDS", "NODES", "DETAIL"}};
    for (const auto& h : r.hits)
      rows.push_back({std::string(lint::to_string(h.severity)), h.rule, backends_text(h),
                      node_list_text(h.nodes), h.detail});
    out += aligned(rows) + "\n";
    for (const auto& h : r.hits) {
      out += fmt::format("{} ({}): {}\n", h.rule, lint::to_string(h.severity), h.title);
      out += "    why: " + h.why + "\n";
      for (const auto& a : h.backends)
        out += fmt::format("    {}: {} - {}\n", a.backend.empty() ? "every backend" : a.backend,
                           lint::to_string(a.severity), a.basis);
      if (!h.evidence.empty())
        out += "    evidence: " + h.evidence + " (its repro, and every run in finding.json)\n";
      out += "    fix: " + h.fix + "\n";
    }
  }
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  if (!r.unchecked.empty()) {
    out += "\ncould not check: no session ran, so only the static rules above were checked\n";
    for (const auto& u : r.unchecked) out += "  " + u + "\n";
  }
  out += "\nresult: " + result_line(r) + "\n";
  return out;
}

nlohmann::json lint_to_json(const lint::LintReport& r) {
  using nlohmann::json;
  json checks = json::array();
  for (const auto& c : r.checks) {
    json j = {{"backend", c.label},
              {"ep", c.ep},
              {"ran", c.ran},
              {"runtime_version", c.version},
              {"adapter", c.adapter},
              {"nodes_on_backend", c.nodes_on_backend},
              {"nodes_on_cpu", c.nodes_on_cpu}};
    json cpu = json::array();
    for (const auto& [node, op] : c.cpu_nodes) cpu.push_back({{"node", node}, {"op", op}});
    j["cpu_nodes"] = std::move(cpu);
    if (c.error)
      j["error"] = {{"kind", std::string(to_string(c.error->kind))}, {"message", c.error->message}};
    checks.push_back(std::move(j));
  }
  json hits = json::array();
  for (const auto& h : r.hits) {
    json backends = json::array();
    for (const auto& a : h.backends)
      backends.push_back({{"backend", a.backend},
                          {"ep", a.ep},
                          {"version", a.version},
                          {"severity", lint::to_string(a.severity)},
                          {"basis", a.basis}});
    hits.push_back({{"rule", h.rule},
                    {"severity", lint::to_string(h.severity)},
                    {"title", h.title},
                    {"nodes", h.nodes},
                    {"detail", h.detail},
                    {"why", h.why},
                    {"fix", h.fix},
                    {"finding", h.finding},
                    {"evidence", h.evidence},
                    {"backends", std::move(backends)}});
  }
  return {{"schema", lint::kLintSchema},
          {"model", r.model},
          {"scope", r.scope},
          {"live", r.live},
          {"checks", std::move(checks)},
          {"hits", std::move(hits)},
          {"notes", r.notes},
          {"could_not_check", r.unchecked},
          {"errors", r.count(Severity::error)},
          {"warnings", r.count(Severity::warning)}};
}

}  // namespace parity::report

namespace parity::report {

namespace {

std::string result_text(const lint::FindingCheck& c) {
  if (!c.ran) return "not run";
  if (!c.recorded_fails) return c.fails ? "FAILS" : "passes";
  if (c.fails) return *c.recorded_fails ? "STILL FAILS" : "FAILS (regression: passed before)";
  return *c.recorded_fails ? "FIXED (failed before)" : "passes";
}

}  // namespace

std::string findings_verify_text(const lint::FindingsVerifyReport& r) {
  std::vector<std::vector<std::string>> rows{{"FINDING", "RULE", "BACKEND", "VERSION", "RESULT", "MEASURED"}};
  for (const auto& c : r.checks)
    rows.push_back(
        {c.id, c.rule, c.backend, c.version.empty() ? "-" : c.version, result_text(c), c.measured});
  std::string out = "parity findings verify " + r.dir.string() + "\n\n" + aligned(rows) + "\n";
  const auto recorded =
      std::count_if(r.checks.begin(), r.checks.end(), [](const auto& c) { return c.recorded_now; });
  out += fmt::format("\nresult: {} failing, {} passing, {} differ from the record{}\n", r.still_failing(),
                     r.fixed(), r.changed(),
                     recorded ? fmt::format("; {} run(s) recorded", recorded) : std::string());
  return out;
}

nlohmann::json findings_verify_to_json(const lint::FindingsVerifyReport& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) {
    nlohmann::json j = {{"finding", c.id},        {"rule", c.rule},
                        {"backend", c.backend},   {"ep", c.ep},
                        {"version", c.version},   {"adapter", c.adapter},
                        {"ran", c.ran},           {"fails", c.fails},
                        {"measured", c.measured}, {"recorded", c.recorded_now}};
    j["recorded_fails"] = c.recorded_fails ? nlohmann::json(*c.recorded_fails) : nlohmann::json();
    checks.push_back(std::move(j));
  }
  return {
      {"schema", lint::kFindingsVerifySchema}, {"findings", r.dir.string()}, {"checks", std::move(checks)},
      {"still_failing", r.still_failing()},    {"fixed", r.fixed()},         {"changed", r.changed()}};
}

}  // namespace parity::report

namespace parity::report {

std::string fix_text(const lint::FixReport& r) {
  std::string out = "\nfix:\n";
  if (r.applied.empty())
    out += r.skipped.empty() ? "  nothing to apply: none of the --apply rules fired\n"
                             : "  nothing applied: no rule that fired has an exact fix\n";
  for (const auto& a : r.applied) out += "  " + a.rule + ": " + a.what + "\n";
  for (const auto& s : r.skipped) out += "  skipped " + s + "\n";
  if (r.applied.empty()) return out;
  out += fmt::format("  on the reference: {} ({})\n",
                     r.reference_same ? "same outputs as the original" : "DIFFERENT outputs",
                     r.reference_detail);
  if (!r.backends.empty()) {
    std::vector<std::vector<std::string>> rows{{"BACKEND", "ORIGINAL", "FIXED", "FIXED: WORST"}};
    for (const auto& b : r.backends) rows.push_back({b.backend, b.before, b.after, b.detail});
    out += "\n" + aligned(rows) + "\n";
  }
  out += r.written ? "wrote " + r.out.string() + "\n"
                   : "not written: the rewrite changed the outputs on the reference, so it is not exact\n";
  return out;
}

nlohmann::json fix_to_json(const lint::FixReport& r) {
  nlohmann::json applied = nlohmann::json::array(), backends = nlohmann::json::array();
  for (const auto& a : r.applied) applied.push_back({{"rule", a.rule}, {"nodes", a.nodes}, {"what", a.what}});
  for (const auto& b : r.backends)
    backends.push_back({{"backend", b.backend},
                        {"before", b.before},
                        {"after", b.after},
                        {"ok_after", b.ok_after},
                        {"detail", b.detail}});
  return {{"out", r.out.string()},
          {"written", r.written},
          {"applied", std::move(applied)},
          {"skipped", r.skipped},
          {"reference_same", r.reference_same},
          {"reference_detail", r.reference_detail},
          {"backends", std::move(backends)}};
}

}  // namespace parity::report
