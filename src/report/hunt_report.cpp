#include "report/hunt_report.h"

#include <fmt/format.h>

#include <map>

#include "report/probe_json.h"
#include "report/table_text.h"

namespace parity::report {

using nlohmann::json;

std::string hunt_text(const hunt::HuntReport& r) {
  struct Counts {
    int cases = 0, match = 0, mismatch = 0, error = 0, invalid = 0;
  };
  std::map<std::string, Counts> by_space;
  for (const auto& s : r.spaces) by_space[s];
  for (const auto& c : r.cases) {
    Counts& n = by_space[c.space];
    ++n.cases;
    if (!c.invalid.empty()) {
      ++n.invalid;
      continue;
    }
    bool mismatch = false, error = false;
    for (const auto& run : c.runs) {
      mismatch |= run.state == hunt::CaseState::mismatch;
      error |= run.state == hunt::CaseState::error;
    }
    if (mismatch) ++n.mismatch;
    if (error) ++n.error;
    if (!mismatch && !error) ++n.match;
  }
  std::vector<std::vector<std::string>> rows{{"SPACE", "CASES", "MATCH", "WRONG", "FAILED", "NOT RUNNABLE"}};
  Counts total;
  for (const auto& [space, n] : by_space) {
    if (n.cases == 0) continue;
    rows.push_back({space, std::to_string(n.cases), std::to_string(n.match), std::to_string(n.mismatch),
                    std::to_string(n.error), std::to_string(n.invalid)});
    total.cases += n.cases, total.match += n.match, total.mismatch += n.mismatch, total.error += n.error,
        total.invalid += n.invalid;
  }
  rows.push_back({"total", std::to_string(total.cases), std::to_string(total.match), std::to_string(total.mismatch),
                  std::to_string(total.error), std::to_string(total.invalid)});
  std::string targets;
  for (const auto& t : r.targets)
    targets += fmt::format("{}{} (ORT {}{}{})", targets.empty() ? "" : ", ", t.label,
                           t.runtime_version.empty() ? "?" : t.runtime_version, t.adapter.empty() ? "" : ", ", t.adapter);
  std::string s = fmt::format("hunt: seed {}, cases {}..{}, against {}, on {}\n\n", r.seed, r.first_case,
                              r.first_case + r.cases_planned - 1, r.reference, targets);
  s += aligned(rows) + "\n";
  if (r.resumed) s += fmt::format("{} cases read back from the journal\n", r.resumed);
  if (r.budget_spent)
    s += fmt::format("time budget spent: {} of {} cases ran\n", r.cases.size(), r.cases_planned);
  s += fmt::format("\n{} finding{}", r.findings.size(), r.findings.size() == 1 ? "" : "s");
  s += r.findings.empty() ? "\n" : ":\n";
  for (const auto& f : r.findings) {
    s += fmt::format("  {} [{}] {}\n", f.id, hunt::state_name(f.state), f.description);
    s += fmt::format("    measured: {}; explains {} case{}; reduced in {} runs{}\n", f.measured, f.cases.size(),
                     f.cases.size() == 1 ? "" : "s", f.reduce_runs, f.folder ? "; folder " + f.folder->string() : "");
  }
  s += fmt::format("wall {}\n", ms_text(r.wall_s * 1000));
  return s;
}

json hunt_to_json(const hunt::HuntReport& r) {
  json targets = json::array();
  for (const auto& t : r.targets)
    targets.push_back({{"label", t.label}, {"ep", t.ep}, {"runtime_version", t.runtime_version}, {"adapter", t.adapter}});
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
  return {{"schema", hunt::kHuntSchema},
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
}

}  // namespace parity::report
