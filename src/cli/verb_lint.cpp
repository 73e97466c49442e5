// `parity lint`: which backends will get a model wrong, before anything is judged: static rules
// over the file, one real session per --backends entry for what only the runtime knows, and the
// findings base for which runtime versions each known bug affects.
#include <algorithm>
#include <cstdlib>

#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/input_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "core/text.h"
#include "lint/findings_verify.h"
#include "lint/fix.h"
#include "lint/lint.h"
#include "report/lint_report.h"

namespace parity::cli {
namespace {

struct LintArgs {
  std::string model;
  std::string backends;
  bool live = true;
  std::string findings;
  std::string fix;    // --fix OUT.onnx
  std::string apply;  // --apply RULE,... ("all")
  std::string reference = "cpu";
  InputArgs inputs;
  CommonOptions common;
  ReportFiles report_files;
};

// A comma list with its empty entries dropped ("a,,b," -> a, b).
std::vector<std::string> list_of(const std::string& text) {
  std::vector<std::string> out = split(text, ',');
  std::erase(out, std::string());
  return out;
}

std::string default_findings_dir() {
  if (const char* env = std::getenv("PARITY_FINDINGS"); env && *env) return env;
  return PARITY_FINDINGS_DIR;
}

Result<VerbOutput> run(const LintArgs& a) {
  lint::LintOptions o;
  o.model = a.model;
  if (!a.backends.empty()) {
    PARITY_ASSIGN_OR_RETURN(backends, parse_backend_list(a.backends, a.common.defaults()));
    o.backends = std::move(backends);
  }
  o.findings_dir = a.findings.empty() ? default_findings_dir() : a.findings;
  o.live = a.live;
  PARITY_ASSIGN_OR_RETURN(settings, build_input_settings(a.inputs));
  o.inputs = std::move(settings);
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;
  if (a.fix.empty() != a.apply.empty())
    return usage_error("--fix OUT.onnx and --apply RULE,... go together",
                       "e.g. --fix fixed.onnx --apply dq-blocked-1d (or --apply all)");
  PARITY_ASSIGN_OR_RETURN(report, lint::run_lint(o, progress_for(a.common)));
  VerbOutput out{report::lint_text(report), report::lint_to_json(report)};
  // A backend linted for that could not even open the model will get it wrong: a finding, as a
  // failed backend is in probe; so is one that failed at run where another ran the same inputs.
  // Sessions that all failed at run checked nothing: cannot run, unless a rule found an error.
  const bool refused =
      std::any_of(report.checks.begin(), report.checks.end(), [](const auto& c) { return !c.ran; });
  out.exit_code = report.count(lint::Severity::error) > 0 ? kExitFinding
                  : !report.unchecked.empty()             ? kExitCannotRun
                  : refused                               ? kExitFinding
                                                          : kExitOk;
  if (a.report_files.wanted()) add_report_documents(out, a.report_files, report::lint_document(report));
  if (a.fix.empty()) return out;
  lint::FixOptions f;
  f.lint = o;
  f.out = a.fix;
  f.rules = list_of(a.apply);
  PARITY_ASSIGN_OR_RETURN(reference, parse_reference_spec(a.reference, a.common.defaults()));
  f.reference = std::move(reference);
  PARITY_ASSIGN_OR_RETURN(fixed, lint::fix_model(f, report, progress_for(a.common)));
  out.text += report::fix_text(fixed);
  out.json["fix"] = report::fix_to_json(fixed);
  const bool all_ok =
      std::all_of(fixed.backends.begin(), fixed.backends.end(), [](const auto& b) { return b.ok_after; });
  out.exit_code = fixed.written && all_ok ? kExitOk : kExitFinding;
  return out;
}

void declare_lint(CLI::App& cmd, LintArgs& a) {
  cmd.footer(
      "Reads MODEL and says, per rule, which backends will compute it wrong or refuse it, why, the fix and "
      "the evidence (a repro folder under the findings base). Static rules read the file; with --backends "
      "each "
      "backend also runs one real session (random inputs; --dim/--shape as for probe) to learn its runtime "
      "version, the nodes its EP leaves to the CPU, what survives ORT's constant folding and any refusal in "
      "the runtime's own words. A finding's recorded runs decide per version: 'reproduced on 1.30.0', or "
      "'fixed: passes on 1.30.0' (parity findings verify --record keeps them current).\n"
      "Exit status: 0 no error-level hit, 1 an error-level hit for a backend linted for (or one that refused "
      "the model), 2 bad invocation or "
      "unreadable model, 3 cannot run (with --backends: no session ran, each failed on its inputs, and no "
      "rule "
      "found an error). Rules and their evidence: docs/lint.md.\n\n"
      "Examples:\n"
      "  parity lint model.onnx                                  # every backend, from the file\n"
      "  parity lint model.onnx -b webgpu,web-jsep --dim batch=1  # plus one session each\n"
      "  parity lint model.onnx -b old=web-webgpu:ort-web=1.22.0 --json lint.json");
  cmd.add_option("model", a.model, "the ONNX model")->required();
  cmd.add_option("-b,--backends", a.backends,
                 "backends to lint for, comma-separated specs as for probe (default: every EP path, "
                 "from the file alone)");
  add_switch(cmd, "live", a.live, "with --backends, run one session per backend");
  cmd.add_option(
      "--findings", a.findings,
      "the findings base: folders with finding.json (env PARITY_FINDINGS; default docs/findings of "
      "Parity's source tree)");
  cmd.add_option(
      "--fix", a.fix,
      "write the model with the --apply rules' exact fixes to OUT.onnx, once it gives the original's "
      "outputs on --reference (each linted backend is probed before and after)");
  cmd.add_option(
      "--apply", a.apply,
      "rules to fix, comma-separated, or 'all': dq-blocked-1d, slice-negative-step, conv-no-kernel-shape, "
      "fp16-constant-island, unsorted-graph");
  add_reference_option(cmd, a.reference);
  add_input_options(cmd, a.inputs);
  add_report_options(cmd, a.report_files,
                     "each backend's session, the hits coloured by severity, and per hit why, where, the fix "
                     "and the evidence");
  add_common_options(cmd, a.common);
}

struct FindingsArgs {
  std::string findings;
  std::string backends;
  std::string only;
  bool record = false;
  CommonOptions common;
};

Result<VerbOutput> run_findings(const FindingsArgs& a) {
  lint::FindingsVerifyOptions o;
  o.dir = a.findings.empty() ? default_findings_dir() : a.findings;
  o.defaults = a.common.defaults();
  if (!a.backends.empty()) {
    PARITY_ASSIGN_OR_RETURN(backends, parse_backend_list(a.backends, o.defaults));
    o.backends = std::move(backends);
  }
  o.only = list_of(a.only);
  o.record = a.record;
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;
  PARITY_ASSIGN_OR_RETURN(report, lint::verify_findings(o, progress_for(a.common)));
  if (report.checks.empty())
    return nothing_to_do("findings", "no finding of " + o.dir.string() +
                                         (o.only.empty() ? std::string() : " matches --only " + a.only));
  VerbOutput out{report::findings_verify_text(report), report::findings_verify_to_json(report)};
  const bool none_ran =
      std::none_of(report.checks.begin(), report.checks.end(), [](const auto& c) { return c.ran; });
  out.exit_code = none_ran ? kExitCannotRun : (report.changed() > 0 && !a.record ? kExitFinding : kExitOk);
  return out;
}

void declare_findings(CLI::App& cmd, FindingsArgs& a) {
  cmd.footer(
      "'findings verify' reruns the repro of every finding (a folder with model.onnx, test_data_set_0 and "
      "finding.json under the findings base) on the backends its record names, or on --backends, and says "
      "per finding and backend whether it STILL FAILS or is fixed, against what the record holds for that "
      "runtime version. Give another runtime with --ort-lib or --ort-web-version to learn what an upgrade "
      "fixes. --record appends the runs to the records, which is what parity lint reads.\n"
      "Exit status: 0 every result agrees with the record (or --record wrote them), 1 a result differs from "
      "the record for its version (a fix or a regression), 2 bad invocation, 3 nothing could run.\n\n"
      "Examples:\n"
      "  parity findings verify\n"
      "  parity findings verify --ort-web-version 1.22.0 --backends web-jsep,web-webgpu\n"
      "  parity findings verify --ort-lib third_party/ort-1.29.0/lib/libonnxruntime.so.1 --record");
  CLI::App* verify = cmd.add_subcommand("verify", "rerun every finding's repro and say which still fail");
  verify->add_option(
      "--findings", a.findings,
      "the findings base (env PARITY_FINDINGS; default docs/findings of Parity's source tree)");
  verify->add_option("-b,--backends", a.backends,
                     "rerun on these backend specs instead of each record's own");
  verify->add_option("--only", a.only, "only these finding ids, comma-separated");
  verify->add_flag("--record", a.record, "append the results to each finding.json");
  add_common_options(*verify, a.common);
  cmd.require_subcommand(1);
}

}  // namespace

Verb findings_verb() {
  return make_verb<FindingsArgs>("findings",
                                 "rerun the known findings' repros: which still fail, which are fixed",
                                 declare_findings, run_findings);
}

Verb lint_verb() {
  return make_verb<LintArgs>("lint",
                             "say which backends will get a model wrong, from the file and one session each",
                             declare_lint, run);
}

}  // namespace parity::cli
