#include "sweep/manifest_verify.h"

#include <algorithm>
#include <regex>

#include "core/interrupt.h"
#include "core/sha256.h"
#include "manifest/manifest.h"
#include "sweep/ladder.h"
#include "sweep/manifest_builder.h"

namespace parity::sweep {
namespace {

namespace fs = std::filesystem;

Error verify_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::prepare_inputs, std::move(message), std::move(hint));
}

// "" when `path` is the file the sweep hashed; else what became of it.
std::string file_change(const fs::path& path, const std::string& sha) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return path.string() + " is gone";
  if (sha.empty()) return "";
  const auto now = sha256_file(path, Stage::load_model);
  if (!now.ok()) return now.error().message;
  if (*now == sha) return "";
  return path.string() + " changed since the sweep (sha256 " + sha.substr(0, 12) + "... then, " +
         now->substr(0, 12) + "... now)";
}

std::optional<SizePoint> parse_size(const std::string& label) {
  static const std::regex form("([^=]+)=([0-9]+)x([0-9]+)");
  std::smatch m;
  if (!std::regex_match(label, m, form)) return std::nullopt;
  return SizePoint{m[1].str(), std::stoll(m[2].str()), std::stoll(m[3].str())};
}

// What a declaration's cell re-runs: an enabled backend's own file, a disabled one's failing cell.
struct Target {
  std::string variant, file, sha256, precision, opt_level, size;
};

std::optional<Target> target_of(const manifest::Declaration& d) {
  const manifest::Evidence* e = d.evidence ? &*d.evidence : nullptr;
  if (d.enabled)
    return Target{d.variant,
                  d.file,
                  d.sha256,
                  d.precision,
                  d.graph_optimization,
                  e && !e->size.empty() ? e->size : d.max_size};
  if (!e || e->file.empty()) return std::nullopt;
  return Target{e->variant, e->file, e->sha256, e->precision, e->graph_optimization, e->size};
}

std::string runtime_text(const backend::BackendSpec& s) {
  if (backend::is_web_backend(s.ep)) return "onnxruntime-web " + (s.ort_web.empty() ? "default" : s.ort_web);
  return "ORT " + (s.ort_lib.empty() ? "bundled" : s.ort_lib);
}

void judge(DeclarationCheck& c) {
  const CellResult& r = *c.now;
  const bool enabled = c.declaration.enabled;
  const std::string runtime = backend::is_web_backend(c.spec.ep) ? "onnxruntime-web " : "ORT ";
  const std::string under =
      " under " + (r.ort_version.empty() ? runtime_text(c.spec) : runtime + r.ort_version);
  if (r.ok()) {
    c.outcome = enabled ? VerifyOutcome::holds : VerifyOutcome::now_passes;
    if (!enabled) c.detail = "correct now" + under + ": sweep again to declare it";
  } else if (r.reference_failed || r.status == probe::BackendStatus::inconclusive) {
    c.outcome = VerifyOutcome::error;
    c.detail = describe_outcome(r);
  } else {
    c.outcome = enabled ? VerifyOutcome::no_longer_holds : VerifyOutcome::still_fails;
    c.detail = describe_outcome(r) + under;
  }
}

}  // namespace

std::string_view to_string(VerifyOutcome o) {
  switch (o) {
    case VerifyOutcome::holds: return "holds";
    case VerifyOutcome::no_longer_holds: return "no_longer_holds";
    case VerifyOutcome::file_changed: return "file_changed";
    case VerifyOutcome::error: return "error";
    case VerifyOutcome::now_passes: return "now_passes";
    case VerifyOutcome::still_fails: return "still_fails";
    case VerifyOutcome::not_rerun: return "not_rerun";
  }
  return "error";
}

int VerifyReport::exit_code() const {
  bool broken = false, unjudged = false;
  for (const auto& c : checks) {
    if (!c.counts()) continue;
    broken =
        broken || c.outcome == VerifyOutcome::no_longer_holds || c.outcome == VerifyOutcome::file_changed;
    unjudged = unjudged || c.outcome == VerifyOutcome::error;
  }
  return broken ? 1 : unjudged ? 3 : 0;
}

Result<VerifyReport> verify_manifest(const manifest::Manifest& m, const VerifyOptions& o,
                                     const ProgressSink& progress) {
  const std::string name = o.manifest_path.string();
  if (!m.sweep)
    return verify_error(name + " does not record how its evidence was measured (no [sweep] table)",
                        "it was written before 'manifest verify' existed: write it again from the sweep with "
                        "'parity manifest SWEEP --out " +
                            name + "'");
  for (const auto& label : o.only)
    if (std::none_of(m.backends.begin(), m.backends.end(),
                     [&](const auto& d) { return d.backend == label; })) {
      std::string labels;
      for (const auto& d : m.backends) labels += (labels.empty() ? "" : ", ") + d.backend;
      return verify_error("--backends " + label + ": " + name + " declares no such backend",
                          "it declares: " + labels);
    }
  const fs::path dir = o.manifest_path.parent_path();
  const auto resolved = [&dir](const std::string& p) { return manifest::resolve_recorded(p, dir); };
  SweepPlan base;
  base.model = resolved(m.model);
  if (const std::string change = file_change(base.model, m.model_sha256); !change.empty())
    return verify_error("the reference model " + change,
                        "every declaration was judged against the recorded file: sweep the new one");
  for (const auto& [input, sha] : m.sweep->inputs.file_sha256)
    if (auto it = m.sweep->inputs.files.find(input); it != m.sweep->inputs.files.end())
      if (const std::string change = file_change(resolved(it->second), sha); !change.empty())
        return verify_error("input '" + input + "': " + change,
                            "the evidence was measured on the recorded file");
  base.reference = spec_of(m.sweep->reference);
  if (!o.browser.empty() && backend::is_web_backend(base.reference.ep)) base.reference.browser = o.browser;
  base.inputs = settings_of(m.sweep->inputs, resolved);
  base.limits.timeout_s = m.sweep->timeout_s;
  base.limits.max_memory_bytes = m.sweep->max_memory_bytes;

  std::unique_ptr<isolate::BackendRunner> own_runner;
  isolate::BackendRunner& runner = isolate::runner_or(o.runner, own_runner);
  VerifyReport report;
  report.manifest = o.manifest_path;
  report.model = m.model;
  report.ort_lib = o.ort_lib;
  report.ort_web = o.ort_web;
  std::vector<const manifest::Declaration*> todo;
  for (const auto& d : m.backends)
    if (o.only.empty() || std::find(o.only.begin(), o.only.end(), d.backend) != o.only.end())
      todo.push_back(&d);
  for (std::size_t i = 0; i < todo.size() && !interrupted(); ++i) {
    const manifest::Declaration& d = *todo[i];
    DeclarationCheck c;
    c.declaration = d;
    const std::optional<Target> t = target_of(d);
    c.spec = spec_of(d, t ? t->opt_level : "all");
    if (backend::is_web_backend(d.ep)) {
      if (!o.ort_web.empty()) c.spec.ort_web = o.ort_web;
      if (!o.browser.empty()) c.spec.browser = o.browser;
    } else if (!o.ort_lib.empty()) {
      c.spec.ort_lib = o.ort_lib;
    }
    if (t) {
      c.variant = t->variant;
      c.file = t->file;
      c.opt_level = t->opt_level;
      c.size = t->size;
    }
    if (progress)
      progress("manifest verify: " + std::to_string(i + 1) + "/" + std::to_string(todo.size()) + " " +
               d.backend +
               (t ? ": " + c.variant + " at opt " + c.opt_level + (c.size.empty() ? "" : ", " + c.size) +
                        ", " + runtime_text(c.spec)
                  : ""));
    if (!t) {
      c.outcome = VerifyOutcome::not_rerun;
      c.detail = "disabled, and no failing cell is recorded to re-run";
      report.checks.push_back(std::move(c));
      continue;
    }
    const fs::path file = resolved(t->file);
    const std::optional<SizePoint> size = parse_size(t->size);
    if (std::string change = file_change(file, t->sha256); !change.empty()) {
      c.outcome = VerifyOutcome::file_changed;
      c.detail = std::move(change) + ": not re-run";
    } else if (!t->size.empty() && !size) {
      c.outcome = VerifyOutcome::error;
      c.detail = "size '" + t->size + "' does not read INPUT=HEIGHTxWIDTH";
    } else {
      SweepPlan plan = base;
      plan.backends = {c.spec};
      plan.variants = {{t->variant, file, t->precision}};
      plan.opt_levels = {t->opt_level};
      if (size) plan.sizes = {*size};
      auto r = run_cell(plan, 0, runner);
      if (interrupted())
        return make_error(ErrorKind::interrupted, Stage::none, "interrupted during manifest verify");
      if (!r.ok()) {
        c.outcome = VerifyOutcome::error;
        c.detail = r.error().message;
      } else {
        c.now = std::move(*r);
        judge(c);
      }
    }
    if (progress)
      progress("manifest verify: " + d.backend + ": " + std::string(to_string(c.outcome)) +
               (c.detail.empty() ? "" : " (" + c.detail + ")"));
    report.checks.push_back(std::move(c));
  }
  if (interrupted())
    return make_error(ErrorKind::interrupted, Stage::none, "interrupted during manifest verify");
  return report;
}

}  // namespace parity::sweep
