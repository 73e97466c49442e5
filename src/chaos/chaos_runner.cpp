#include "chaos/chaos_runner.h"

#include <algorithm>
#include <cstdlib>

#include "core/child_process.h"
#include "core/interrupt.h"
#include "core/shell_words.h"
#include "isolate/backend_runner.h"
#include "parity/version.h"

namespace parity::chaos {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLogPrefix = "parity-chaos: injected ";

const NamedTensor* find_output(const std::vector<NamedTensor>& outputs, const std::string& name) {
  auto it =
      std::find_if(outputs.begin(), outputs.end(), [&](const NamedTensor& t) { return t.name == name; });
  return it == outputs.end() ? nullptr : &*it;
}

}  // namespace

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::clean_error: return "clean-error";
    case Outcome::crashed: return "crashed";
    case Outcome::hung: return "hung";
    case Outcome::wrong_output: return "wrong-output";
    case Outcome::unaffected: return "unaffected";
  }
  return "unaffected";
}

bool ChaosReport::any_crash_or_hang() const {
  return std::any_of(faults.begin(), faults.end(), [](const FaultResult& f) {
    return f.outcome == Outcome::crashed || f.outcome == Outcome::hung;
  });
}

std::vector<std::string> injection_lines(const std::string& worker_log) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while ((pos = worker_log.find(kLogPrefix, pos)) != std::string::npos) {
    const std::size_t start = pos + std::string_view(kLogPrefix).size();
    std::size_t end = worker_log.find('\n', start);
    if (end == std::string::npos) end = worker_log.size();
    lines.push_back(worker_log.substr(start, end - start));
    pos = end;
  }
  return lines;
}

FaultResult classify(const PlannedFault& fault, const isolate::IsolatedRun& run,
                     const std::vector<NamedTensor>& reference, const std::optional<Tolerance>& tolerance) {
  FaultResult r;
  r.fault = fault;
  r.injections = injection_lines(run.worker_log);
  r.wall_ms = run.wall_ms;
  if (!run.result.ok()) {
    const Error& e = run.result.error();
    r.error = e;
    r.outcome = e.kind == ErrorKind::crashed   ? Outcome::crashed
                : e.kind == ErrorKind::timeout ? Outcome::hung
                                               : Outcome::clean_error;
    if (r.outcome != Outcome::clean_error) r.worker_log = run.worker_log;
    return r;
  }
  r.adapter = run.result->adapter;
  for (const auto& expected : reference) {
    const NamedTensor* actual = find_output(run.result->outputs, expected.name);
    const Evaluation ev =
        evaluate_output(actual, expected, tolerance.value_or(default_tolerance(expected.tensor.dtype())));
    if (ev.verdict.verdict == Verdict::mismatch) {
      r.outcome = Outcome::wrong_output;
      r.failed_output = expected.name;
      r.failed_rule = ev.verdict.failed_rule;
      r.detail = ev.verdict.detail;
      r.comparison = ev.comparison;
      return r;
    }
  }
  r.outcome = Outcome::unaffected;
  return r;
}

Result<ChaosReport> run_chaos(const ChaosOptions& options, const ProgressSink& progress) {
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  PARITY_TRY(validate_plan(options.plan));
  if (backend::is_web_backend(options.backend.ep))
    return make_error(ErrorKind::unavailable, Stage::parse_args,
                      "parity chaos injects Vulkan faults into a native worker; '" + options.backend.ep +
                          "' runs in Chromium's GPU process, which the chaos layer does not reach yet",
                      "run chaos on the native webgpu backend (same Dawn, same WGSL kernels)");
  PARITY_ASSIGN_OR_RETURN(model, model::inspect_model(options.model_path));
  probe::InputSettings settings = options.inputs;
  settings.samples = 1;  // one fault, one run: the fault is the variable, not the data
  PARITY_ASSIGN_OR_RETURN(plan, probe::plan_inputs(model, settings));

  backend::RunRequest request;
  request.model_path = options.model_path.string();
  request.inputs = plan.samples.at(0);

  ChaosReport report;
  report.parity_version = std::string(kParityVersion);
  report.model = model;
  report.backend = options.backend.label;
  report.reference = options.reference.label;
  report.plan_source = options.plan.source;
  report.layer_manifest = options.layer.manifest.string();

  isolate::WorkerLaunch plain;
  plain.worker_exe = options.worker_exe;
  say(options.reference.label + ": reference run");
  isolate::BackendRunner reference_runner;  // the reference may be any backend, a browser one too
  const isolate::IsolatedRun ref = reference_runner.run(options.reference, request, options.limits, plain);
  if (!ref.result.ok()) {
    Error e = ref.result.error();
    if (e.kind == ErrorKind::interrupted) return e;  // no fault ran: nothing to report but that
    e.message = "reference backend '" + options.reference.label +
                "' failed, nothing to judge faults by: " + e.message;
    return e;
  }
  const std::vector<NamedTensor>& expected = ref.result->outputs;

  auto run_one = [&](const PlannedFault& fault) {
    isolate::WorkerLaunch launch = plain;
    launch.env = layer_env(options.layer, fault.spec);
    const isolate::IsolatedRun run = isolate::run_isolated(options.backend, request, options.limits, launch);
    FaultResult r = classify(fault, run, expected, options.tolerance);
    r.repro = options.repro_prefix + " --fault " + shell_quote(fault.spec, /*always=*/true);
    say(options.backend.label + ": " + fault.name + ": " + std::string(to_string(r.outcome)) +
        (r.injections.empty() ? " (fault never fired)" : "") + " in " +
        std::to_string(static_cast<int>(r.wall_ms)) + " ms");
    return r;
  };
  report.faults_planned = options.plan.faults.size();
  // A run cut short by Ctrl-C failed as "interrupted", which is no outcome of the fault (it would
  // read as clean-error): it is left out, and the report says it was interrupted.
  if (options.baseline && !interrupted()) {
    FaultResult baseline =
        run_one(PlannedFault{"baseline", "", "layer loaded, no fault: pass-through check"});
    if (!interrupted()) {
      report.baseline = std::move(baseline);
      report.baseline->repro = options.repro_prefix + " (no --fault: every row runs this baseline first)";
    }
  }
  for (const auto& fault : options.plan.faults) {
    if (interrupted()) break;
    FaultResult r = run_one(fault);
    if (interrupted()) break;
    report.faults.push_back(std::move(r));
  }
  report.interrupted = interrupted();
  return report;
}

}  // namespace parity::chaos
