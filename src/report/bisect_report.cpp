#include "report/bisect_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/json_io.h"
#include "report/probe_json.h"

namespace parity::report {
namespace {

using nlohmann::json;

json metrics_json(const std::optional<Comparison>& c) { return c ? comparison_to_json(*c) : json(nullptr); }

json tensor_json(const bisect::TensorReport& t) {
  json j{{"name", t.name}, {"node", t.node}, {"op_type", t.op_type}, {"order", t.order}};
  j["verdict"] = !t.compared ? "not_compared" : t.verdict == Verdict::match ? "match" : "mismatch";
  j["metrics"] = metrics_json(t.metrics);
  if (t.compared) j["tolerance"] = tolerance_to_json(t.tolerance, t.metrics ? &*t.metrics : nullptr);
  if (!t.failed_rule.empty()) j["failed_rule"] = t.failed_rule;
  if (!t.detail.empty()) j["detail"] = t.detail;
  return j;
}

std::string error_text(const bisect::TensorReport& t) {
  if (!t.compared) return "not compared";
  std::string s = t.verdict == Verdict::match ? "match" : "MISMATCH";
  if (t.metrics) {
    s += fmt::format("  max_abs {:.3g} (bound {:.3g} + {:.3g}*|ref|, max|ref| {:.3g})", t.metrics->max_abs,
                     t.metrics->bound_abs, t.tolerance.rtol, t.metrics->ref_max_abs);
    if (t.metrics->nan_mismatch > 0) s += fmt::format("  nan_mismatch {}", t.metrics->nan_mismatch);
  } else if (!t.failed_rule.empty()) {
    s += "  (" + t.failed_rule + ")";
  }
  return s;
}

std::string ms_text(double ms) {
  return ms >= 1000 ? fmt::format("{:.1f} s", ms / 1000) : fmt::format("{:.0f} ms", ms);
}

json runs_json(const std::vector<bisect::RunCost>& runs) {
  json a = json::array();
  for (const auto& c : runs)
    a.push_back({{"backend", c.backend},
                 {"what", c.what},
                 {"ok", c.ok},
                 {"start_ms", json_number(c.start_ms)},
                 {"wall_ms", json_number(c.wall_ms)},
                 {"create_ms", json_number(c.create_ms)},
                 {"run_ms", json_number(c.run_ms)},
                 {"output_bytes", c.output_bytes}});
  return a;
}

}  // namespace

json bisect_to_json(const bisect::BisectReport& r) {
  json j{{"schema", kBisectSchema},
         {"parity_version", r.parity_version},
         {"model", r.model},
         {"target", r.target},
         {"reference", r.reference},
         {"seed", r.seed},
         {"ort_version", r.ort_version},
         {"adapter", r.adapter},
         {"method", r.method},
         {"final_mismatch", r.final_mismatch},
         {"exposure_reproduces", r.exposure_reproduces},
         {"backend_runs", r.backend_runs},
         {"wall_ms", json_number(r.wall_ms)},
         {"plain_run_ms", json_number(r.plain_run_ms)},
         {"runs", runs_json(r.runs)},
         {"notes", r.notes},
         {"skipped_subgraphs", r.skipped_subgraphs},
         {"path", r.path}};
  if (r.first_divergent) {
    const auto& f = *r.first_divergent;
    j["first_divergent"] = {{"tensor", f.tensor},
                            {"node", f.node},
                            {"op_type", f.op_type},
                            {"order", f.order},
                            {"born_here", f.born_here},
                            {"weight_path", f.weight_path},
                            {"reads_graph_input", f.reads_graph_input},
                            {"near_tie", f.near_tie},
                            {"failed_rule", f.failed_rule},
                            {"metrics", metrics_json(f.metrics)}};
  } else {
    j["first_divergent"] = nullptr;
  }
  // A margin says how close a clean run came to a false alarm; past a divergence it means nothing.
  if (const auto m = r.first_divergent ? std::nullopt : bisect::closest_match(r.tensors))
    j["margin"] = {{"tensor", m->tensor},
                   {"node", m->node},
                   {"op_type", m->op_type},
                   {"bound_used", json_number(m->bound_used)},
                   {"headroom", json_number(m->headroom())}};
  else
    j["margin"] = nullptr;
  json tensors = json::array();
  for (const auto& t : r.tensors) tensors.push_back(tensor_json(t));
  j["tensors"] = std::move(tensors);
  j["isolation"] = {{"attempted", r.isolation.attempted},
                    {"reproduces", r.isolation.reproduces},
                    {"nodes", r.isolation.nodes},
                    {"outputs", r.isolation.outputs},
                    {"metrics", metrics_json(r.isolation.metrics)},
                    {"note", r.isolation.note}};
  j["repro_dir"] = r.repro_dir ? json(r.repro_dir->string()) : json(nullptr);
  if (r.repro_error) j["repro_error"] = r.repro_error->message;
  j["error"] = r.target_error ? error_to_json(*r.target_error) : json(nullptr);
  if (r.interrupted) {  // only then, so an uninterrupted report keeps its shape
    j["interrupted"] = true;
    j["tensors_compared"] = std::count_if(r.tensors.begin(), r.tensors.end(),
                                          [](const bisect::TensorReport& t) { return t.compared; });
    j["final_mismatch"] = nullptr;  // not judged: the plain run may not have finished
  }
  return j;
}

std::string bisect_text(const bisect::BisectReport& r) {
  std::string s;
  if (r.target_error) {
    s += fmt::format("{}: the target could not be run: {}\n", r.target, r.target_error->describe());
    return s;
  }
  s += fmt::format("bisect {} vs {} on {}\n", r.target, r.reference, r.model);
  if (r.interrupted) {
    const auto compared = std::count_if(r.tensors.begin(), r.tensors.end(),
                                        [](const bisect::TensorReport& t) { return t.compared; });
    s += fmt::format("interrupted: {} of {} tensors compared; no verdict (rerun to finish)\n", compared,
                     r.tensors.size());
    for (const auto& t : r.tensors)
      if (t.compared && t.verdict == Verdict::mismatch)
        s +=
            fmt::format("  compared before the interruption: {} ({}) {}\n", t.name, t.op_type, error_text(t));
    s += fmt::format("backend runs: {}, wall {}\n", r.backend_runs, ms_text(r.wall_ms));
    return s;
  }
  s += fmt::format("final outputs: {}\n", r.final_mismatch ? "MISMATCH" : "match");
  if (r.first_divergent) {
    const auto& f = *r.first_divergent;
    s += fmt::format("first divergent tensor: {} (node {}, {}), born here: {}\n", f.tensor, f.node, f.op_type,
                     f.near_tie    ? "yes, but as a near-tie flip on matching inputs: no miscompute found"
                     : f.born_here ? "yes"
                                   : "no (inherited from upstream)");
    s += "path from the inputs to the culprit:\n";
    for (const auto& name : r.path) {
      const bisect::TensorReport* row = nullptr;
      for (const auto& t : r.tensors)
        if (t.name == name) row = &t;
      if (row)
        s += fmt::format("  {:<24} {:<20} {}\n", name, row->node + " (" + row->op_type + ")",
                         error_text(*row));
      else
        s += fmt::format("  {:<24} {:<20} graph input (same on both sides)\n", name, "");
    }
    if (r.isolation.attempted) {
      std::string nodes;
      for (const auto& n : r.isolation.nodes) nodes += (nodes.empty() ? "" : ", ") + n;
      s += fmt::format("isolation: {} [{}]: {}\n",
                       r.isolation.reproduces ? "reproduces" : "does not reproduce", nodes, r.isolation.note);
    }
  } else {
    s += "no divergence: every compared tensor matches the reference\n";
  }
  if (const auto m = r.first_divergent ? std::nullopt : bisect::closest_match(r.tensors))
    s += m->bound_used == 0
             ? "margin: every matching tensor is exact\n"
             : fmt::format(
                   "margin: {:.3g}x headroom; closest to its bound: {} (node {}, {}) at {:.3g} of it\n",
                   m->headroom(), m->tensor, m->node, m->op_type, m->bound_used);
  for (const auto& n : r.notes) s += "note: " + n + "\n";
  if (r.repro_dir) s += "repro folder: " + r.repro_dir->string() + "\n";
  s += fmt::format("backend runs: {}, wall {} (plain target run {})\n", r.backend_runs, ms_text(r.wall_ms),
                   ms_text(r.plain_run_ms));
  return s;
}

json verify_to_json(const bisect::VerifyReport& r) {
  json outs = json::array();
  for (const auto& o : r.outputs) outs.push_back(tensor_json(o));
  return {{"schema", "parity.verify/1"},
          {"backend", r.backend},
          {"still_fails", r.still_fails},
          {"ort_version", r.ort_version},
          {"adapter", r.adapter},
          {"recorded_error", r.recorded_error},
          {"differences", r.differences},
          {"not_used", r.not_used},
          {"setup", r.setup},
          {"tolerance", r.tolerance},
          {"outputs", outs},
          {"error", r.error ? error_to_json(*r.error) : json(nullptr)}};
}

std::string verify_text(const bisect::VerifyReport& r) {
  // What the folder named and was not run comes first, so it is seen even when the run failed.
  std::string recorded;
  for (const auto& n : r.not_used) recorded += fmt::format("note: {}\n", n);
  if (r.error)
    return recorded + fmt::format("{}: could not run the repro: {}\n", r.backend, r.error->describe());
  std::string s;
  for (const auto& o : r.outputs) s += fmt::format("  {:<24} {}\n", o.name, error_text(o));
  for (const auto& d : r.differences) s += fmt::format("  note: not the recorded setup: {}\n", d);
  s = recorded + fmt::format("replaying: {}; {}\n", r.setup, r.tolerance) + s;
  s += r.still_fails
           ? fmt::format("{}: STILL FAILS (recorded at bisect time: {})\n", r.backend, r.recorded_error)
           : fmt::format("{}: fixed: the repro now matches the reference outputs\n", r.backend);
  return s;
}

}  // namespace parity::report
