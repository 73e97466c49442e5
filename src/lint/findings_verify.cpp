#include "lint/findings_verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "backend/browser/ort_web_dist.h"
#include "bisect/verify.h"
#include "core/scratch_dir.h"
#include "core/text.h"
#include "core/utc_time.h"
#include "model/smoke_model.h"

namespace parity::lint {
namespace {

// The runtime release a spec loads, for runs that fail before they report one: a web path's from its
// bundle; a native library's from one run of the built-in smoke model on its CPU EP, in a worker,
// once per library (`known` keeps the answers).
std::string runtime_version(const backend::BackendSpec& spec, const FindingsVerifyOptions& o,
                            std::map<std::string, std::string>& known) {
  if (backend::is_web_backend(spec.ep)) {
    auto dist = backend::browser::locate_ort_web(spec.ort_web);
    return dist.ok() ? dist->version : "";
  }
  if (const auto it = known.find(spec.ort_lib); it != known.end()) return it->second;
  std::string& version = known[spec.ort_lib];
  auto dir = ScratchDir::create("parity-version", Stage::write_output);
  if (!dir.ok() || !model::write_smoke_model(dir->path() / "smoke.onnx").ok()) return "";
  backend::BackendSpec cpu = spec;
  cpu.label = "version";
  cpu.ep = "cpu";
  cpu.provider_options.clear();
  cpu.count_nodes = false;
  backend::RunRequest request;
  request.model_path = (dir->path() / "smoke.onnx").string();
  std::vector<std::byte> zeros(8 * sizeof(float));
  request.inputs = {{"x", *Tensor::from_bytes(DType::float32, {1, 8}, std::move(zeros))}};
  auto run = o.runner->run(cpu, request, o.limits);
  if (run.result.ok()) version = run.result->runtime_version;
  return version;
}

// A record is data (bisect/replay_trust.h): it contributes only EP names; the runtime, browser
// and every path come from the user's flags (`defaults`), never from the record or its repro.json.
std::vector<backend::BackendSpec> specs_for(const FindingRecord& r, const FindingsVerifyOptions& o) {
  if (!o.backends.empty()) return o.backends;
  std::vector<backend::BackendSpec> out;
  for (const auto& ep : r.backends) {
    backend::BackendSpec s = o.defaults;
    s.label = ep;
    s.ep = ep;
    out.push_back(std::move(s));
  }
  return out;
}

FindingCheck run_one(const FindingRecord& r, const backend::BackendSpec& spec, const FindingsVerifyOptions& o,
                     std::map<std::string, std::string>& versions, const probe::ProgressSink& progress) {
  FindingCheck c{r.id, r.rule, r.title, spec.label, spec.ep, "", "", false, false, "", std::nullopt, false};
  bisect::VerifyOptions v;
  v.dir = r.folder;
  v.backend = spec;
  v.limits = o.limits;
  v.runner = o.runner;
  if (auto meta = bisect::read_repro_meta(r.folder); meta.ok()) v.tolerance = meta->tolerance;
  auto report = bisect::run_verify(v, progress);
  if (!report.ok()) {
    c.measured = "repro folder unreadable: " + report.error().message;
    return c;
  }
  c.version = report->ort_version;
  c.adapter = report->adapter;
  if (report->error) {
    // A backend that is not there (an EP the library lacks, no adapter) says nothing about the bug;
    // one that refuses or fails on the repro still fails it.
    const ErrorKind kind = report->error->kind;
    if (kind == ErrorKind::unavailable && report->error->stage <= Stage::append_provider) {
      c.measured = "not run: " + first_line(report->error->message);
      return c;
    }
    if (c.version.empty()) c.version = runtime_version(spec, o, versions);
    c.ran = true;
    c.fails = true;
    c.measured = "error: " + first_line(report->error->message);
    return c;
  }
  c.ran = true;
  c.fails = report->still_fails;
  double worst = 0;
  for (const auto& t : report->outputs) {
    if (t.metrics) worst = std::max(worst, t.metrics->max_abs);
    if (t.verdict == Verdict::mismatch && t.failed_rule != "allclose" && c.measured.empty())
      c.measured = t.name + ": rule '" + t.failed_rule + "': " + first_line(t.detail).substr(0, 120);
  }
  if (c.measured.empty()) c.measured = fmt::format("max_abs {:.4g}", worst);
  return c;
}

}  // namespace

std::size_t FindingsVerifyReport::still_failing() const {
  return static_cast<std::size_t>(
      std::count_if(checks.begin(), checks.end(), [](const auto& c) { return c.ran && c.fails; }));
}
std::size_t FindingsVerifyReport::fixed() const {
  return static_cast<std::size_t>(
      std::count_if(checks.begin(), checks.end(), [](const auto& c) { return c.ran && !c.fails; }));
}
std::size_t FindingsVerifyReport::changed() const {
  return static_cast<std::size_t>(std::count_if(checks.begin(), checks.end(), [](const auto& c) {
    return c.ran && c.recorded_fails && *c.recorded_fails != c.fails;
  }));
}

Result<FindingsVerifyReport> verify_findings(const FindingsVerifyOptions& options,
                                             const probe::ProgressSink& progress) {
  PARITY_ASSIGN_OR_RETURN(records, read_findings(options.dir));
  for (const auto& id : options.only)
    if (std::none_of(records.begin(), records.end(), [&](const auto& r) { return r.id == id; }))
      return make_error(ErrorKind::bad_input, Stage::parse_args,
                        "no finding '" + id + "' in " + options.dir.string(),
                        "parity findings verify lists every finding without --only");
  FindingsVerifyReport report;
  report.dir = options.dir;
  std::unique_ptr<isolate::BackendRunner> own;
  FindingsVerifyOptions o = options;
  o.runner = &isolate::runner_or(options.runner, own);  // one browser for every web run
  const std::string today = utc_now("%Y-%m-%d");
  std::map<std::string, std::string> versions;  // native library -> its version, asked once
  for (auto& r : records) {
    if (!options.only.empty() &&
        std::find(options.only.begin(), options.only.end(), r.id) == options.only.end())
      continue;
    bool touched = false;
    for (const auto& spec : specs_for(r, o)) {
      if (progress) progress("findings: " + r.id + " on " + spec.label);
      FindingCheck c = run_one(r, spec, o, versions, progress);
      // What the record says for this backend and version: this adapter's run, else any adapter's.
      for (const auto& run : r.runs)
        if (run.backend == c.ep && !c.version.empty() && compare_versions(run.version, c.version) == 0 &&
            (run.adapter == c.adapter || !c.recorded_fails))
          c.recorded_fails = run.fails;
      if (options.record && c.ran && !c.version.empty()) {
        std::erase_if(r.runs, [&](const FindingRun& run) {  // one run per backend, version and adapter
          return run.backend == c.ep && compare_versions(run.version, c.version) == 0 &&
                 run.adapter == c.adapter;
        });
        r.runs.push_back({c.ep, c.version, c.fails, c.measured, c.adapter, today});
        c.recorded_now = touched = true;
      }
      report.checks.push_back(std::move(c));
    }
    if (touched) PARITY_TRY(write_finding(r));
  }
  return report;
}

}  // namespace parity::lint
