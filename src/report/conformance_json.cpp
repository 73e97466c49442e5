#include "report/conformance_json.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/json_io.h"

namespace parity::report {

using namespace ::parity::conformance;  // this file renders that module's types
namespace {

using nlohmann::json;

// JSON has no NaN/Inf: write them as strings, as parity.probe/1 does.
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double number_from(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  return NAN;
}

json comparison_json(const Comparison& c) {
  json j = {{"max_abs", number(c.max_abs)},   {"max_rel", number(c.max_rel)},
            {"mean_abs", number(c.mean_abs)}, {"elements_over_tol", c.elements_over_tol},
            {"nan_mismatch", c.nan_mismatch}, {"worst_index", c.worst_index}};
  if (c.cosine) j["cosine"] = number(*c.cosine);
  return j;
}

Comparison comparison_from(const json& j) {
  Comparison c;
  c.max_abs = number_from(j.value("max_abs", json(0)));
  c.max_rel = number_from(j.value("max_rel", json(0)));
  c.mean_abs = number_from(j.value("mean_abs", json(0)));
  c.elements_over_tol = j.value("elements_over_tol", int64_t{0});
  c.nan_mismatch = j.value("nan_mismatch", int64_t{0});
  c.worst_index = j.value("worst_index", int64_t{-1});
  if (j.contains("cosine")) c.cosine = number_from(j["cosine"]);
  return c;
}

json outcome_json(const Outcome& o) {
  json j = {{"state", std::string(to_string(o.state))},
            {"message", o.reason},
            {"nodes_on_backend", o.nodes_on_backend},
            {"nodes_on_cpu", o.nodes_on_cpu},
            {"duration_ms", std::round(o.duration_ms * 10) / 10}};
  if (o.setup_ms > 0) j["setup_ms"] = std::round(o.setup_ms * 10) / 10;
  if (o.run_cpu_ms >= 0) j["run_cpu_ms"] = std::round(o.run_cpu_ms * 10) / 10;
  if (o.session_run_ms > 0) j["session_run_ms"] = std::round(o.session_run_ms * 10) / 10;
  if (!o.failed_rule.empty()) j["failed_rule"] = o.failed_rule;
  if (!o.output.empty()) j["output"] = o.output;
  if (o.comparison) j["metrics"] = comparison_json(*o.comparison);
  if (o.error) j["error"] = error_to_json(*o.error);
  if (o.rechecked) j["rechecked"] = true;
  if (!o.attempts.empty()) {
    j["attempts"] = json::array();
    for (const auto& a : o.attempts) j["attempts"].push_back(outcome_json(a));
  }
  return j;
}

Error bad_file(const std::string& what) {
  return make_error(ErrorKind::bad_input, Stage::load_model, what,
                    "pass a file written by 'parity conformance --json'");
}

Result<Outcome> outcome_from_json(const json& j, const std::string& test) {
  Outcome o;
  const std::string name = j.at("state").get<std::string>();
  auto s = state_from_string(name);
  if (!s) return bad_file("test " + test + ": unknown state '" + name + "'");
  o.state = *s;
  o.reason = j.value("message", "");
  o.failed_rule = j.value("failed_rule", "");
  o.output = j.value("output", "");
  o.nodes_on_backend = j.value("nodes_on_backend", int64_t{-1});
  o.nodes_on_cpu = j.value("nodes_on_cpu", int64_t{-1});
  o.duration_ms = j.value("duration_ms", 0.0);
  o.setup_ms = j.value("setup_ms", 0.0);
  o.run_cpu_ms = j.value("run_cpu_ms", -1.0);
  o.session_run_ms = j.value("session_run_ms", 0.0);
  o.rechecked = j.value("rechecked", false);
  if (j.contains("metrics")) o.comparison = comparison_from(j["metrics"]);
  if (j.contains("error")) o.error = error_from_json(j["error"]);
  for (const auto& a : j.value("attempts", json::array())) {
    PARITY_ASSIGN_OR_RETURN(attempt, outcome_from_json(a, test));
    o.attempts.push_back(std::move(attempt));
  }
  return o;
}

}  // namespace

json conformance_to_json(const ConformanceReport& r) {
  json backends = json::array();
  for (const auto& b : r.backends)
    backends.push_back({{"label", b.label},
                        {"ep", b.ep},
                        {"ort_lib", b.ort_lib},
                        {"ort_version", b.runtime_version},
                        {"adapter", b.adapter},
                        {"fallback", b.allow_fallback}});
  json summary = json::object();
  for (std::size_t b = 0; b < r.backends.size(); ++b) {
    json counts = json::object();
    for (State s : kAllStates) counts[std::string(to_string(s))] = r.count(b, s);
    summary[r.backends[b].label] = counts;
  }
  json tests = json::array();
  for (const auto& t : r.tests) {
    json results = json::object();
    for (std::size_t b = 0; b < r.backends.size() && b < t.results.size(); ++b)
      results[r.backends[b].label] = outcome_json(t.results[b]);
    tests.push_back(
        {{"name", t.name}, {"op", t.op}, {"ops", t.ops}, {"opset", t.opset}, {"results", results}});
  }
  json j = {{"schema", kConformanceSchema},
            {"parity_version", r.parity_version},
            {"suite", r.suite},
            {"filters", r.filters},
            {"tolerance", {{"atol", r.tolerance.atol}, {"rtol", r.tolerance.rtol}}},
            {"jobs", r.jobs},
            {"wall_s", std::round(r.wall_s * 10) / 10},
            {"backends", backends},
            {"summary", summary},
            {"tests", tests}};
  if (r.interrupted) {  // only then, so an uninterrupted report keeps its shape
    j["interrupted"] = true;
    j["tests_planned"] = r.tests_planned;
  }
  return j;
}

Result<ConformanceReport> conformance_from_json(const json& j) {
  if (!j.is_object() || j.value("schema", "") != kConformanceSchema)
    return bad_file("not a " + std::string(kConformanceSchema) + " document");
  ConformanceReport r;
  try {
    r.parity_version = j.value("parity_version", "");
    r.suite = j.value("suite", "");
    r.filters = j.value("filters", std::vector<std::string>{});
    r.jobs = j.value("jobs", 1);
    r.wall_s = j.value("wall_s", 0.0);
    if (j.contains("tolerance")) {
      r.tolerance.atol = j["tolerance"].value("atol", kOnnxDefaultAtol);
      r.tolerance.rtol = j["tolerance"].value("rtol", kOnnxDefaultRtol);
    }
    for (const auto& b : j.at("backends")) {
      BackendInfo info;
      info.label = b.at("label").get<std::string>();
      info.ep = b.value("ep", "");
      info.ort_lib = b.value("ort_lib", "");
      info.runtime_version = b.value("ort_version", "");
      info.adapter = b.value("adapter", "");
      info.allow_fallback = b.value("fallback", true);
      r.backends.push_back(std::move(info));
    }
    for (const auto& t : j.at("tests")) {
      TestReport tr;
      tr.name = t.at("name").get<std::string>();
      tr.op = t.value("op", "");
      tr.ops = t.value("ops", std::vector<std::string>{});
      tr.opset = t.value("opset", int64_t{0});
      tr.results.resize(r.backends.size());
      const json& results = t.at("results");
      for (std::size_t b = 0; b < r.backends.size(); ++b) {
        auto it = results.find(r.backends[b].label);
        Outcome o;
        if (it == results.end()) {
          o.state = State::skipped;
          o.reason = "not in the file";
        } else {
          PARITY_ASSIGN_OR_RETURN(read, outcome_from_json(*it, tr.name));
          o = std::move(read);
        }
        tr.results[b] = std::move(o);
      }
      r.tests.push_back(std::move(tr));
    }
  } catch (const json::exception& e) {
    return bad_file(std::string("malformed result file: ") + e.what());
  }
  return r;
}

Result<ConformanceReport> read_conformance_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return make_error(ErrorKind::io, Stage::load_model, "cannot read " + path.string());
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) return bad_file(path.string() + " is not JSON");
  auto r = conformance_from_json(j);
  if (!r.ok()) r.error().message = path.string() + ": " + r.error().message;
  return r;
}

}  // namespace parity::report
