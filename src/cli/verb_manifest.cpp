// `parity manifest`: write a capability manifest from a sweep, check one (hand-edited or not), and
// verify one: re-run the evidence behind every declaration, e.g. under another ONNX Runtime.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/common_options.h"
#include "cli/verb.h"
#include "core/text.h"
#include "core/utc_time.h"
#include "manifest/manifest.h"
#include "report/manifest_verify_report.h"
#include "sweep/manifest_builder.h"
#include "sweep/manifest_verify.h"
#include "sweep/sweep_files.h"

namespace parity::cli {
namespace {

namespace fs = std::filesystem;

struct ManifestArgs {
  std::string sweep;  // a sweep's --json file or its --out folder
  std::string out;
  std::string check_file;  // `manifest check FILE`
  std::string json_path;   // --json: the manifest as JSON on top of --out (check, verify: the findings)
  // `manifest verify FILE`:
  std::string verify_file;
  std::string ort_lib, ort_web, chromium;  // replace what the manifest recorded
  std::string backends;                    // LABEL,...: only these declarations
  bool quiet = false;
};

struct SweepInput {
  sweep::SweepPlan plan;
  std::vector<sweep::CellResult> results;
};

// A sweep's --out folder (plan.json + results*.jsonl) or its --json report (parity.sweep/1).
Result<SweepInput> read_sweep(const fs::path& path) {
  SweepInput in;
  if (fs::is_directory(path)) {
    PARITY_ASSIGN_OR_RETURN(plan, sweep::read_plan(path / "plan.json"));
    PARITY_ASSIGN_OR_RETURN(results, sweep::read_results(path, plan));
    in.plan = std::move(plan);
    for (auto& [k, r] : results) in.results.push_back(std::move(r));
    return in;
  }
  std::ifstream file(path);
  const nlohmann::json j = nlohmann::json::parse(file, nullptr, false);
  if (!file || j.is_discarded() || j.value("schema", "") != "parity.sweep/1")
    return usage_error(path.string() + " is not a sweep result (parity.sweep/1 JSON) or a sweep --out folder",
                       "run 'parity sweep ... --json FILE' first, or pass its --out folder");
  PARITY_ASSIGN_OR_RETURN(plan, sweep::plan_from_json(j["plan"], path.string()));
  in.plan = std::move(plan);
  for (const auto& c : j.value("cells", nlohmann::json::array())) {
    PARITY_ASSIGN_OR_RETURN(r, sweep::cell_from_json(c));
    in.results.push_back(std::move(r));
  }
  return in;
}

std::string summary_line(const manifest::Declaration& d) {
  if (!d.enabled) return "  " + d.backend + ": disabled: " + d.reason + "\n";
  return "  " + d.backend + ": " + d.variant + " (" + d.file + "), opt " + d.graph_optimization +
         (d.max_size.empty() ? "" : ", up to " + d.max_size) +
         (d.size_budget.empty() ? "" : ", budget " + d.size_budget) + "\n";
}

Result<VerbOutput> run_write(const ManifestArgs& a) {
  if (a.sweep.empty() || a.out.empty())
    return usage_error("give the sweep (its --json file or --out folder) and --out FILE",
                       "e.g. parity manifest sweep.json --out caps.toml");
  PARITY_ASSIGN_OR_RETURN(in, read_sweep(a.sweep));
  PARITY_ASSIGN_OR_RETURN(m, sweep::build_manifest(in.plan, in.results, utc_now("%Y-%m-%d")));
  PARITY_TRY(manifest::write_manifest(m, a.out));
  std::string text = "wrote " + a.out + " (" + manifest::kSchema + "):\n";
  for (const auto& d : m.backends) text += summary_line(d);
  return VerbOutput{text, manifest::to_json(m)};
}

Result<VerbOutput> run_check(const ManifestArgs& a) {
  PARITY_ASSIGN_OR_RETURN(checked, manifest::read_manifest(a.check_file));
  VerbOutput out;
  for (const auto& p : checked.problems)
    out.text += a.check_file + (p.line ? ":" + std::to_string(p.line) : "") + ": " + p.message + "\n";
  if (checked.problems.empty()) {
    out.text += a.check_file + ": valid " + manifest::kSchema + ", " +
                std::to_string(checked.manifest.backends.size()) + " backends\n";
    for (const auto& d : checked.manifest.backends) out.text += summary_line(d);
  } else {
    out.text +=
        std::to_string(checked.problems.size()) + " problem(s): the manifest is not usable as it is\n";
    out.exit_code = kExitFinding;
  }
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& p : checked.problems) problems.push_back({{"line", p.line}, {"message", p.message}});
  out.json = {{"file", a.check_file}, {"valid", checked.problems.empty()}, {"problems", problems}};
  return out;
}

Result<VerbOutput> run_verify(const ManifestArgs& a) {
  PARITY_ASSIGN_OR_RETURN(checked, manifest::read_manifest(a.verify_file));
  if (!checked.problems.empty()) {
    std::string first = checked.problems.front().message;
    return usage_error(a.verify_file + " is not a usable manifest (" +
                           std::to_string(checked.problems.size()) + " problem(s), the first: " + first + ")",
                       "'parity manifest check " + a.verify_file + "' lists them with their lines");
  }
  sweep::VerifyOptions o;
  o.manifest_path = a.verify_file;
  o.ort_lib = a.ort_lib;
  o.ort_web = a.ort_web;
  o.browser = a.chromium;
  if (!a.backends.empty()) o.only = split(a.backends, ',');
  sweep::ProgressSink progress;
  if (!a.quiet) progress = print_progress;
  PARITY_ASSIGN_OR_RETURN(report, sweep::verify_manifest(checked.manifest, o, progress));
  VerbOutput out{report::manifest_verify_table(report), report::manifest_verify_to_json(report)};
  const int code = report.exit_code();
  out.exit_code = code == 1 ? kExitFinding : code == 3 ? kExitCannotRun : kExitOk;
  return out;
}

void declare_manifest(CLI::App& cmd, ManifestArgs& a) {
  cmd.footer(
      "Writes what a sweep proved as a capability manifest: per backend, `enabled`, the variant file (with "
      "its "
      "sha256), precision, graph_optimization, the largest size proven and provider/session options, each "
      "with the sweep cell that is its evidence (metric, ORT version, adapter, date); a backend with no "
      "correct "
      "variant is `enabled = false` with the reason. TOML, or JSON when --out ends in .json (web apps load "
      "that). 'manifest check FILE' validates a manifest, hand-edited or not, naming each problem with its "
      "line.\n"
      "Exit status: 0 written / valid, 1 the manifest has problems, 2 bad invocation or unreadable input. "
      "See "
      "docs/manifest.md.\n"
      "'manifest verify FILE' re-runs the evidence behind every declaration (the fp32 model on the recorded "
      "reference against the declared file, opt level and size, on the recorded inputs), optionally under "
      "another ONNX Runtime (--ort-lib) or onnxruntime-web (--ort-web), and says which still hold: the gate "
      "to run before bumping ORT. Exit status: 0 every enabled declaration holds, 1 one no longer holds or "
      "its file changed, 2 bad invocation or unusable manifest, 3 one could not be judged.\n\n"
      "Examples:\n"
      "  parity sweep det.onnx --variants fp16=det_fp16.onnx -b cpu,webgpu --json sweep.json\n"
      "  parity manifest sweep.json --out caps.toml\n"
      "  parity manifest sweep-det/ --out caps.json      (a sweep's --out folder works too)\n"
      "  parity manifest check caps.toml\n"
      "  parity manifest verify caps.toml --ort-lib /opt/ort-1.31/lib/libonnxruntime.so.1\n"
      "  parity manifest verify caps.toml --ort-web 1.22.0 --backends web-webgpu --json verify.json");
  cmd.add_option("sweep", a.sweep, "a sweep's --json file (parity.sweep/1) or its --out folder");
  cmd.add_option("-o,--out", a.out, "the manifest to write: .toml, or .json for the JSON form");
  cmd.add_option("--json", a.json_path, "also write the manifest as JSON to FILE ('-' for stdout)");
  CLI::App* check = cmd.add_subcommand("check", "validate a manifest: unknown keys, wrong types, bad values");
  check->add_option("file", a.check_file, "the manifest (.toml or .json)")->required();
  check->add_option("--json", a.json_path, "also write the findings as JSON to FILE ('-' for stdout)");
  CLI::App* verify = cmd.add_subcommand(
      "verify",
      "re-run the evidence behind every declaration (e.g. under another ORT) and say which still hold");
  verify->add_option("file", a.verify_file, "the manifest (.toml or .json)")->required();
  verify->add_option("--ort-lib", a.ort_lib,
                     "ONNX Runtime library (libonnxruntime.so) for every native declaration, instead of the "
                     "recorded one; the reference keeps its own");
  verify->add_option(
      "--ort-web", a.ort_web,
      "onnxruntime-web release (e.g. 1.22.0, from third_party/) or unpacked package folder for "
      "every browser declaration, instead of the recorded one");
  verify->add_option("--chromium", a.chromium,
                     "Chromium executable for browser backends, instead of the recorded one");
  verify->add_option("-b,--backends", a.backends, "re-run only these declarations, LABEL,... (default: all)");
  verify->add_option("--json", a.json_path,
                     "also write the result as JSON (parity.manifest-verify/1) to FILE ('-' for stdout)");
  verify->add_flag("-q,--quiet", a.quiet, "no progress lines on stderr");
}

Result<VerbOutput> run_manifest_verb(const ManifestArgs& a) {
  if (!a.verify_file.empty()) return run_verify(a);
  return a.check_file.empty() ? run_write(a) : run_check(a);
}

}  // namespace

Verb manifest_verb() {
  return make_verb<ManifestArgs>("manifest",
                                 "write a capability manifest from a sweep, check one, or verify it",
                                 declare_manifest, run_manifest_verb);
}

}  // namespace parity::cli
