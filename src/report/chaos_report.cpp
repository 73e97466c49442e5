#include "report/chaos_report.h"

#include <algorithm>
#include <map>

#include "report/probe_json.h"

namespace parity::report {

using namespace ::parity::chaos;  // this file renders that module's types
namespace {

std::string one_line(std::string s, std::size_t max) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

// ORT prefixes a failed check with its source path and the condition; the table shows what the
// component said after that (the JSON keeps the whole message).
std::string essential(const std::string& message) {
  std::string m = message;
  for (const char* marker : {" was false. ", "FAIL : "})
    if (auto at = m.find(marker); at != std::string::npos) m = m.substr(at + std::string_view(marker).size());
  if (auto at = m.find("    at "); at != std::string::npos) m.resize(at);
  return m;
}

std::string detail_of(const FaultResult& r) {
  switch (r.outcome) {
    case Outcome::clean_error:
    case Outcome::hung: return r.error ? essential(r.error->message) : "";
    case Outcome::crashed: return r.error ? signal_name(r.error->signal) + ": " + r.error->message : "";
    case Outcome::wrong_output: return r.failed_output + ": " + r.failed_rule + ": " + r.detail;
    case Outcome::unaffected:
      if (r.fault.spec.empty()) return "outputs match the reference";  // the baseline: no fault to fire
      return r.injections.empty() ? "fault never fired (call not reached)"
                                  : "recovered or not on a used path";
  }
  return {};
}

nlohmann::json result_to_json(const FaultResult& r) {
  nlohmann::json j;
  j["name"] = r.fault.name;
  j["spec"] = r.fault.spec;
  if (!r.fault.why.empty()) j["why"] = r.fault.why;
  j["outcome"] = std::string(to_string(r.outcome));
  j["fired"] = r.injections.size();
  j["injections"] = r.injections;
  if (r.error) {
    j["stage"] = std::string(to_string(r.error->stage));
    j["error_kind"] = std::string(to_string(r.error->kind));
    j["message"] = r.error->message;
    if (r.error->signal != 0) {
      j["signal"] = r.error->signal;
      j["signal_name"] = signal_name(r.error->signal);
    }
  }
  if (r.outcome == Outcome::wrong_output) {
    j["output"] = r.failed_output;
    j["failed_rule"] = r.failed_rule;
    j["detail"] = r.detail;
    if (r.comparison) j["comparison"] = report::comparison_to_json(*r.comparison);
  }
  if (!r.adapter.empty()) j["adapter"] = r.adapter;
  j["wall_ms"] = r.wall_ms;
  j["repro"] = r.repro;
  if (!r.worker_log.empty()) j["worker_log"] = r.worker_log;
  return j;
}

std::string tone_of(Outcome o) {
  switch (o) {
    case Outcome::clean_error: return "match";
    case Outcome::unaffected: return "reference";
    case Outcome::wrong_output: return "inconclusive";
    case Outcome::crashed:
    case Outcome::hung: return "mismatch";
  }
  return "";
}

std::vector<const FaultResult*> rows_of(const ChaosReport& report) {
  std::vector<const FaultResult*> rows;
  if (report.baseline) rows.push_back(&*report.baseline);
  for (const auto& f : report.faults) rows.push_back(&f);
  return rows;
}

std::map<std::string, int> outcome_counts(const ChaosReport& report) {
  std::map<std::string, int> counts;
  for (const auto& f : report.faults) ++counts[std::string(to_string(f.outcome))];
  return counts;
}

std::string counts_line(const ChaosReport& report) {
  std::string out = std::to_string(report.faults.size()) + " faults:";
  for (const auto& [name, n] : outcome_counts(report)) out += " " + std::to_string(n) + " " + name + ",";
  if (out.back() == ',') out.pop_back();
  return out;
}

// Without a fault the backend is already wrong on this model (found on the GPU machine: ORT's WebGPU
// EP computes Silero VAD's 1-D Conv wrong), so wrong-output rows would blame the faults for it.
std::string baseline_warning(const ChaosReport& report) {
  if (!report.baseline || report.baseline->outcome != Outcome::wrong_output) return "";
  return "the baseline (layer loaded, no fault) is already wrong: the backend miscomputes this model with no "
         "fault at all, so wrong-output rows say nothing about the faults; probe or bisect it first";
}

std::vector<std::string> crash_repros(const ChaosReport& report) {
  std::vector<std::string> lines;
  for (const auto& f : report.faults)
    if (f.outcome == Outcome::crashed || f.outcome == Outcome::hung) {
      lines.push_back("# " + f.fault.name + ": " + std::string(to_string(f.outcome)));
      lines.push_back(f.repro);
    }
  return lines;
}

}  // namespace

std::string chaos_table(const ChaosReport& report) {
  const auto rows = rows_of(report);
  std::size_t name_w = 5;
  for (const auto* r : rows) name_w = std::max(name_w, r->fault.name.size());
  std::string out;
  auto pad = [](std::string s, std::size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
  };
  out += pad("FAULT", name_w) + "  " + pad("OUTCOME", 12) + "  FIRED  " + pad("STAGE", 15) + "  DETAIL\n";
  for (const auto* r : rows) {
    const std::string stage = r->error ? std::string(to_string(r->error->stage)) : "-";
    out += pad(r->fault.name, name_w) + "  " + pad(std::string(to_string(r->outcome)), 12) + "  " +
           pad(std::to_string(r->injections.size()), 5) + "  " + pad(stage, 15) + "  " +
           one_line(detail_of(*r), 110) + "\n";
  }
  out += "\n" + counts_line(report) + "\n";
  if (report.interrupted)
    out += "interrupted: " + std::to_string(report.faults.size()) + " of " +
           std::to_string(report.faults_planned) + " faults finished" +
           (report.baseline ? "" : ", the baseline did not") + "; the rest have no outcome (rerun them)\n";
  if (const std::string w = baseline_warning(report); !w.empty()) out += "warning: " + w + "\n";
  for (const auto& f : report.faults)
    if (f.outcome == Outcome::crashed || f.outcome == Outcome::hung)
      out += "repro (" + std::string(to_string(f.outcome)) + "): " + f.repro + "\n";
  return out;
}

nlohmann::json chaos_to_json(const ChaosReport& report) {
  nlohmann::json j;
  j["schema"] = kChaosSchema;
  j["parity_version"] = report.parity_version;
  j["model"] = report.model.path.string();
  j["backend"] = report.backend;
  j["reference"] = report.reference;
  j["plan"] = report.plan_source;
  j["layer_manifest"] = report.layer_manifest;
  if (report.baseline) j["baseline"] = result_to_json(*report.baseline);
  j["faults"] = nlohmann::json::array();
  for (const auto& f : report.faults) j["faults"].push_back(result_to_json(f));
  j["summary"] = outcome_counts(report);
  j["any_crash_or_hang"] = report.any_crash_or_hang();
  if (report.interrupted) {  // only then, so an uninterrupted report keeps its shape
    j["interrupted"] = true;
    j["faults_planned"] = report.faults_planned;
  }
  return j;
}

Document chaos_document(const ChaosReport& report) {
  Table t{"robustness", {"fault", "outcome", "fired", "stage", "detail"}, {}};
  for (const auto* r : rows_of(report))
    t.rows.push_back({{Cell(r->fault.name, "", r->fault.spec == r->fault.name ? "" : r->fault.spec),
                       Cell(std::string(to_string(r->outcome)), tone_of(r->outcome)),
                       {std::to_string(r->injections.size())},
                       {r->error ? std::string(to_string(r->error->stage)) : "-"},
                       Cell(one_line(detail_of(*r), 300), "", r->fault.why)},
                      {{"fault", r->fault.name}, {"outcome", std::string(to_string(r->outcome))}}});
  Section results{
      "Faults",
      {},
      {Paragraph{"green: a typed error came back; grey: the fault changed nothing; amber: a wrong "
                 "answer without an error; red: the process crashed or hung",
                 "note"},
       std::move(t), Paragraph{counts_line(report)}}};
  if (const std::string w = baseline_warning(report); !w.empty())
    results.blocks.push_back(Paragraph{"warning: " + w, "verdict-error"});
  Section repros{"Repro of each crash or hang", {}, {}};
  if (auto lines = crash_repros(report); !lines.empty()) repros.blocks.push_back(Commands{std::move(lines)});
  return {"parity chaos " + report.model.path.filename().string() + " on " + report.backend,
          "reference " + report.reference + "; plan " + report.plan_source + "; layer " +
              report.layer_manifest + "; parity " + report.parity_version,
          {std::move(results), std::move(repros)}};
}

}  // namespace parity::report
