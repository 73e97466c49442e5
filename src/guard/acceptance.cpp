#include "guard/acceptance.h"

#include <chrono>

#include "backend/backend.h"
#include "core/interrupt.h"
#include "core/scratch_dir.h"
#include "guard/self_checks.h"
#include "guard/web_acceptance.h"
#include "manifest/manifest.h"
#include "model/onnx_model.h"
#include "probe/input_plan.h"
#include "probe/manifest_setup.h"

namespace parity::guard {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The sample: the files given, other inputs as the manifest's sweep fed them.
Result<std::vector<NamedTensor>> load_sample(const Manifest& m, const AcceptOptions& o,
                                             const fs::path& model) {
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(model));
  const fs::path base = fs::absolute(o.manifest_path).parent_path();
  probe::InputSettings settings;
  if (m.sweep)
    settings = probe::settings_of(m.sweep->inputs,
                                  [&](const std::string& p) { return manifest::resolve_recorded(p, base); });
  settings.samples = 1;
  for (const auto& [name, file] : o.samples) {
    settings.files[name] = file;
    settings.shapes.erase(name);
    settings.resize.erase(name);  // the application's own size, not the sweep's
  }
  PARITY_ASSIGN_OR_RETURN(plan, probe::plan_inputs(info, settings));
  return std::move(plan.samples.front());
}

std::string first_failure_of(const std::vector<GuardEvent>& events) {
  for (const GuardEvent& e : events)
    if (e.kind == GuardEvent::Kind::refused || e.kind == GuardEvent::Kind::open_failed ||
        e.kind == GuardEvent::Kind::preflight_failed || e.kind == GuardEvent::Kind::run_failed ||
        e.kind == GuardEvent::Kind::check_failed)
      return std::string(to_string(e.kind)) + ": " + e.message;
  return "";
}

BackendAcceptance accept_one(const manifest::Declaration& d, const Manifest& m, const AcceptOptions& o,
                             const fs::path& model, const std::vector<NamedTensor>& sample,
                             const fs::path& scratch) {
  BackendAcceptance a;
  a.label = d.backend;
  a.ep = d.ep;
  if (!d.enabled) {
    a.status = AcceptStatus::unfit;
    a.reason = d.reason;
    return a;
  }
  const auto start = Clock::now();
  if (backend::is_web_backend(d.ep)) {
    accept_in_browser(d, m, o, model, sample, scratch, a);
  } else {
    GuardOptions g;
    g.only = d.backend;
    g.isolated = o.isolated;
    g.cache_dir = o.cache_dir;
    g.base_dir = fs::absolute(o.manifest_path).parent_path();
    g.on_event = [&](const GuardEvent& e) { a.events.push_back(e); };
    auto session = GuardedSession::open(model, m, g);
    if (session.ok()) {
      if (auto run = (*session)->run(sample); run.ok()) a.run = std::move(run).value();
    } else if (a.events.empty()) {
      a.events.push_back(
          {GuardEvent::Kind::open_failed, d.backend, session.error().describe(), session.error()});
    }
  }
  if (a.run) a.task = run_task_checks(o.task, sample, a.run->outputs, scratch.string());
  a.wall_ms = ms_since(start);
  if (!a.run) {
    a.status = AcceptStatus::failed;
    a.reason = first_failure_of(a.events);
    if (a.reason.empty()) a.reason = "the run failed";
    return a;
  }
  for (const CheckResult& c : a.task)
    if (!c.passed && a.reason.empty()) a.reason = "task check " + c.check + ": " + c.detail;
  a.status = a.reason.empty() ? AcceptStatus::passed : AcceptStatus::failed;
  return a;
}

}  // namespace

std::string_view to_string(AcceptStatus s) {
  switch (s) {
    case AcceptStatus::passed: return "passed";
    case AcceptStatus::failed: return "failed";
    case AcceptStatus::unfit: return "unfit";
  }
  return "?";
}

int AcceptReport::exit_code() const {
  for (const BackendAcceptance& b : backends)
    if (b.status == AcceptStatus::failed) return 1;
  return 0;
}

Result<AcceptReport> run_acceptance(const AcceptOptions& o) {
  PARITY_ASSIGN_OR_RETURN(m, Manifest::load(o.manifest_path));
  const fs::path model =
      o.model.empty() ? manifest::resolve_recorded(m.model, fs::absolute(o.manifest_path).parent_path())
                      : o.model;
  for (const std::string& label : o.only)
    if (!m.find(label))
      return make_error(ErrorKind::bad_input, Stage::parse_args,
                        "the manifest declares no backend '" + label + "'", "see parity manifest check");
  PARITY_ASSIGN_OR_RETURN(sample, load_sample(m, o, model));
  PARITY_ASSIGN_OR_RETURN(scratch, ScratchDir::create("parity-accept", Stage::write_output));
  AcceptReport report;
  report.manifest = o.manifest_path.string();
  report.model = model.string();
  for (const auto& [name, file] : o.samples) report.samples.push_back(name + "=" + file.string());
  for (const manifest::Declaration& d : m.backends) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), d.backend) == o.only.end()) continue;
    if (interrupted()) break;
    if (o.progress && d.enabled) o.progress(d.backend + ": running the sample through the guard");
    BackendAcceptance one = accept_one(d, m, o, model, sample, scratch.path());
    if (interrupted()) break;  // a run cut short by Ctrl-C neither passes nor fails the gate
    report.backends.push_back(std::move(one));
    if (o.progress && d.enabled)
      o.progress(d.backend + ": " + std::string(to_string(report.backends.back().status)) +
                 (report.backends.back().reason.empty() ? "" : ": " + report.backends.back().reason));
  }
  return report;
}

}  // namespace parity::guard
