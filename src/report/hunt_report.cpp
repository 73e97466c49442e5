#include "report/hunt_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "report/probe_json.h"
#include "report/table_text.h"

namespace parity::report {

using nlohmann::json;

namespace {

struct SpaceCounts {
  std::string space;
  int cases = 0, match = 0, mismatch = 0, error = 0, invalid = 0, fallback = 0;
};

// Per space (and a last "total" row): cases, matching, wrong, failed, not runnable.
std::vector<SpaceCounts> space_counts(const hunt::HuntReport& r) {
  std::map<std::string, SpaceCounts> by_space;
  for (const auto& c : r.cases) {
    SpaceCounts& n = by_space[c.space];
    n.space = c.space;
    ++n.cases;
    if (!c.invalid.empty()) {
      ++n.invalid;
      continue;
    }
    bool mismatch = false, error = false, judged = false;
    for (const auto& run : c.runs) {
      mismatch |= run.state == hunt::CaseState::mismatch;
      error |= run.state == hunt::CaseState::error;
      judged |= run.state != hunt::CaseState::fallback && run.state != hunt::CaseState::invalid;
    }
    if (mismatch) ++n.mismatch;
    if (error) ++n.error;
    if (!judged) ++n.fallback;
    if (judged && !mismatch && !error) ++n.match;
  }
  std::vector<SpaceCounts> rows;
  SpaceCounts total{"total"};
  for (const auto& [space, n] : by_space) {
    rows.push_back(n);
    total.cases += n.cases, total.match += n.match, total.mismatch += n.mismatch, total.error += n.error,
        total.invalid += n.invalid, total.fallback += n.fallback;
  }
  rows.push_back(total);
  return rows;
}

std::string targets_text(const hunt::HuntReport& r) {
  std::string targets;
  for (const auto& t : r.targets)
    targets += fmt::format("{}{} (ORT {}{}{})", targets.empty() ? "" : ", ", t.label,
                           t.runtime_version.empty() ? "?" : t.runtime_version, t.adapter.empty() ? "" : ", ",
                           t.adapter);
  return targets;
}

}  // namespace

std::string hunt_text(const hunt::HuntReport& r) {
  std::vector<std::vector<std::string>> rows{
      {"SPACE", "CASES", "MATCH", "WRONG", "FAILED", "ON CPU FALLBACK", "NOT RUNNABLE"}};
  for (const auto& n : space_counts(r))
    rows.push_back({n.space, std::to_string(n.cases), std::to_string(n.match), std::to_string(n.mismatch),
                    std::to_string(n.error), std::to_string(n.fallback), std::to_string(n.invalid)});
  std::string s = fmt::format("hunt: seed {}, cases {}..{}, against {}, on {}\n\n", r.seed, r.first_case,
                              r.first_case + r.cases_planned - 1, r.reference, targets_text(r));
  s += aligned(rows) + "\n";
  if (r.resumed) s += fmt::format("{} cases read back from the journal\n", r.resumed);
  if (r.budget_spent)
    s += fmt::format("time budget spent: {} of {} cases ran\n", r.cases.size(), r.cases_planned);
  if (r.interrupted)
    s += fmt::format("interrupted: {} of {} cases finished; no reduction ran (resume with --journal)\n",
                     r.cases.size(), r.cases_planned);
  s += fmt::format("\n{} finding{}", r.findings.size(), r.findings.size() == 1 ? "" : "s");
  s += r.findings.empty() ? "\n" : ":\n";
  for (const auto& f : r.findings) {
    s += fmt::format("  {} [{}] {}\n", f.id, hunt::state_name(f.state), f.description);
    s += fmt::format("    measured: {}; explains {} case{}; reduced in {} runs{}\n", f.measured,
                     f.cases.size(), f.cases.size() == 1 ? "" : "s", f.reduce_runs,
                     f.folder ? "; folder " + f.folder->string() : "");
  }
  s += fmt::format("wall {}\n", ms_text(r.wall_s * 1000));
  return s;
}

Document hunt_document(const hunt::HuntReport& r) {
  Document doc;
  doc.title = "parity hunt";
  doc.subtitle = fmt::format("seed {}, cases {}..{}, against {}, on {}; {} finding{}, wall {}", r.seed,
                             r.first_case, r.first_case + r.cases_planned - 1, r.reference, targets_text(r),
                             r.findings.size(), r.findings.size() == 1 ? "" : "s", ms_text(r.wall_s * 1000));
  Table spaces{
      "spaces", {"space", "cases", "match", "wrong", "failed", "on CPU fallback", "not runnable"}, {}};
  for (const auto& n : space_counts(r))
    spaces.rows.push_back(Row{
        {Cell{n.space}, Cell{std::to_string(n.cases)}, Cell{std::to_string(n.match), n.match ? "match" : ""},
         Cell{std::to_string(n.mismatch), n.mismatch ? "mismatch" : ""},
         Cell{std::to_string(n.error), n.error ? "error" : ""}, Cell{std::to_string(n.fallback)},
         Cell{std::to_string(n.invalid)}},
        {{"space", n.space}},
        true});
  Section summary{"Cases by space", {}, {spaces}};
  if (r.budget_spent)
    summary.blocks.push_back(Paragraph{
        fmt::format("time budget spent: {} of {} cases ran", r.cases.size(), r.cases_planned), "note"});
  if (r.interrupted)
    summary.blocks.push_back(Paragraph{fmt::format("interrupted: {} of {} cases finished; no reduction ran",
                                                   r.cases.size(), r.cases_planned),
                                       "note"});
  doc.sections.push_back(std::move(summary));
  if (r.findings.empty())
    doc.sections.push_back(Section{"Findings", {}, {Paragraph{"no finding: every runnable case matched"}}});
  for (const auto& f : r.findings) {
    Section s{f.id, {{"finding", f.id}, {"state", hunt::state_name(f.state)}}, {}};
    s.blocks.push_back(Paragraph{f.description});
    s.blocks.push_back(Table{
        "facts",
        {},
        {Row{{Cell{"op"}, Cell{f.op_type + " (space " + f.space + ")"}}, {}, true},
         Row{{Cell{"backend"}, Cell{f.target}}, {}, true},
         Row{{Cell{"outcome"}, Cell{hunt::state_name(f.state),
                                    f.state == hunt::CaseState::error ? "error" : "mismatch", f.measured}},
             {},
             true},
         Row{{Cell{"reduced point"}, Cell{hunt::point_text(f.point)}}, {}, true},
         Row{{Cell{"cases explained"}, Cell{fmt::format("{}", fmt::join(f.cases, ", "))}}, {}, true},
         Row{{Cell{"runs to reduce"}, Cell{std::to_string(f.reduce_runs)}}, {}, true}}});
    Table bounds{
        "boundary", {"parameter", "meaning", "value", "neighbours failing too", "neighbours passing"}, {}};
    for (const auto& b : f.boundaries)
      bounds.rows.push_back(Row{{Cell{b.param}, Cell{b.meaning}, Cell{hunt::value_text(b.value), "mismatch"},
                                 Cell{hunt::values_list(b.failing)},
                                 Cell{hunt::values_list(b.passing), b.passing.empty() ? "" : "match"}},
                                {{"param", b.param}, {"essential", b.passing.empty() ? "no" : "yes"}}});
    s.blocks.push_back(std::move(bounds));
    if (!f.patterns.empty()) s.blocks.push_back(BulletList{f.patterns});
    if (f.folder) s.blocks.push_back(Commands{{"parity verify " + f.folder->string()}});
    doc.sections.push_back(std::move(s));
  }
  return doc;
}

json hunt_to_json(const hunt::HuntReport& r) {
  json targets = json::array();
  for (const auto& t : r.targets)
    targets.push_back(
        {{"label", t.label}, {"ep", t.ep}, {"runtime_version", t.runtime_version}, {"adapter", t.adapter}});
  json cases = json::array();
  for (const auto& c : r.cases) {
    json runs = json::array();
    for (const auto& run : c.runs)
      runs.push_back({{"target", run.target},
                      {"state", hunt::state_name(run.state)},
                      {"measured", run.measured},
                      {"metrics", run.metrics ? comparison_to_json(*run.metrics) : json(nullptr)}});
    cases.push_back({{"index", c.index},
                     {"space", c.space},
                     {"point", c.point},
                     {"seed", c.seed},
                     {"invalid", c.invalid.empty() ? json(nullptr) : json(c.invalid)},
                     {"runs", runs}});
  }
  json findings = json::array();
  for (const auto& f : r.findings) {
    json boundaries = json::array();
    for (const auto& b : f.boundaries)
      boundaries.push_back({{"param", b.param},
                            {"meaning", b.meaning},
                            {"value", b.value},
                            {"failing", b.failing},
                            {"passing", b.passing}});
    findings.push_back({{"id", f.id},
                        {"space", f.space},
                        {"op_type", f.op_type},
                        {"target", f.target},
                        {"state", hunt::state_name(f.state)},
                        {"point", f.point},
                        {"seed", f.seed},
                        {"description", f.description},
                        {"measured", f.measured},
                        {"boundaries", boundaries},
                        {"cases", f.cases},
                        {"reduce_runs", f.reduce_runs},
                        {"folder", f.folder ? json(f.folder->string()) : json(nullptr)}});
  }
  json j = {{"schema", hunt::kHuntSchema},
            {"parity_version", r.parity_version},
            {"seed", r.seed},
            {"spaces", r.spaces},
            {"reference", r.reference},
            {"targets", targets},
            {"first_case", r.first_case},
            {"cases_planned", r.cases_planned},
            {"resumed", r.resumed},
            {"budget_spent", r.budget_spent},
            {"wall_s", r.wall_s},
            {"cases", cases},
            {"findings", findings}};
  if (r.interrupted) {  // only then, so an uninterrupted report keeps its shape
    j["interrupted"] = true;
    j["cases_finished"] = r.cases.size();
  }
  return j;
}

}  // namespace parity::report
