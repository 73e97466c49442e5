// `parity accept`: the application's own sample through the guard runtime on every backend the
// manifest declares fit, with its checks and the task's assertions: a release gate in one command.
#include <cstdio>

#include "cli/common_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "core/text.h"
#include "guard/acceptance.h"
#include "report/accept_report.h"

namespace parity::cli {
namespace {

struct AcceptArgs {
  std::string manifest;
  std::vector<std::string> samples;  // NAME=FILE
  std::string model;
  std::string backends;
  bool isolated = false;
  bool no_cache = false;
  std::optional<int64_t> expect_scale;
  std::optional<double> keep_brightness, min_sharpness, max_colour_shift;
  std::string predicate;
  std::string json_path;
  bool quiet = false;
  ReportFiles report_files;
};

Result<VerbOutput> run(const AcceptArgs& a) {
  guard::AcceptOptions o;
  o.manifest_path = a.manifest;
  o.model = a.model;
  for (const std::string& s : a.samples) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      return usage_error("--sample wants NAME=FILE, not '" + s + "'", "e.g. --sample x=photo.png");
    o.samples[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const std::string& b : split(a.backends, ','))
    if (!b.empty()) o.only.push_back(b);
  o.isolated = a.isolated;
  if (a.no_cache) o.cache_dir = "-";
  o.task.scale = a.expect_scale;
  o.task.keep_brightness = a.keep_brightness;
  o.task.min_sharpness = a.min_sharpness;
  o.task.max_colour_shift = a.max_colour_shift;
  o.task.predicate = a.predicate;
  if (!a.quiet) o.progress = print_progress;
  PARITY_ASSIGN_OR_RETURN(report, guard::run_acceptance(o));
  VerbOutput out{report::accept_table(report), report::accept_to_json(report)};
  out.exit_code = report.exit_code() == 0 ? kExitOk : kExitFinding;
  if (a.report_files.wanted()) add_report_documents(out, a.report_files, report::accept_document(report));
  return out;
}

void declare(CLI::App& cmd, AcceptArgs& a) {
  cmd.footer(
      "Runs the application's own sample through the guard runtime (docs/guard.md) on every backend the "
      "manifest declares, each on its own with no fallback: native backends through the C++ guard, browser "
      "backends (web-wasm, web-jsep, web-webgpu) through parity-guard.mjs in headless Chromium; preflight, "
      "the manifest's [checks] and, with "
      "these options, the task's assertions on the output. A backend declared fit that cannot start, fails "
      "its preflight, returns no output that passes the checks, or fails an assertion fails the gate; one "
      "declared unfit is listed and not run.\n"
      "Exit status: 0 every backend declared fit passed, 1 one did not (or could not be run here), 2 bad "
      "invocation or an unusable manifest.\n\n"
      "Examples:\n"
      "  parity accept caps.toml --sample x=photo.png --expect-scale 2 --keep-brightness 0.05\n"
      "  parity accept caps.toml --sample x=photo.png --min-sharpness 0.5 --max-colour-shift 0.2\n"
      "  parity accept caps.toml --sample x=photo.png --predicate 'python3 check_face.py' --json "
      "accept.json\n"
      "  parity accept caps.toml --sample x=photo.png -b webgpu --isolated\n"
      "  parity accept caps.toml --sample x=photo.png -b web-webgpu,web-wasm");
  cmd.add_option("manifest", a.manifest, "the capability manifest (.toml or .json)")->required();
  cmd.add_option(
      "--sample", a.samples,
      "NAME=FILE: the application's input NAME from FILE (an image, .npy or .pb); repeat per input; "
      "inputs not given are fed as the manifest's sweep fed them");
  cmd.add_option("--model", a.model, "the model the manifest describes (default: its `model`, beside it)");
  cmd.add_option("-b,--backends", a.backends, "only these declarations, LABEL,... (default: all)");
  cmd.add_flag("--isolated", a.isolated,
               "run each backend in worker processes, as the guard's isolated mode");
  cmd.add_flag("--no-cache", a.no_cache, "run every preflight again instead of reading cached verdicts");
  cmd.add_option("--expect-scale", a.expect_scale, "the output's H and W are the input's times N")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--keep-brightness", a.keep_brightness, "|mean(output) - mean(input)| at most D")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--min-sharpness", a.min_sharpness,
                 "the output's mean gradient (per input pixel) at least R times the input's")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--max-colour-shift", a.max_colour_shift,
                 "per channel, value histograms of input and output at most D apart (0..1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--predicate", a.predicate, "a shell command given the output as .npy; exit 0 passes");
  add_report_options(cmd, a.report_files,
                     "each backend's result, checks with their measured values, the events that decided it, "
                     "and the outputs as pictures side by side");
  cmd.add_option("--json", a.json_path,
                 "also write the result as JSON (parity.accept/1) to FILE ('-' for stdout)");
  cmd.add_flag("-q,--quiet", a.quiet, "no progress lines on stderr");
}

}  // namespace

Verb accept_verb() {
  return make_verb<AcceptArgs>(
      "accept", "run the application's sample through the guard on every declared backend", declare, run);
}

}  // namespace parity::cli
