// `parity bisect`: find the first tensor where a backend departs from the reference, confirm it on
// an isolated node, and write a repro folder. `parity verify`: rerun such a folder.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "bisect/bisect.h"
#include "bisect/replay_trust.h"
#include "bisect/verify.h"
#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/input_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "core/interrupt.h"
#include "core/out_folder.h"
#include "model/graph_facts.h"
#include "report/bisect_document.h"
#include "report/bisect_report.h"
#include "report/probe_json.h"

namespace parity::cli {
namespace {

struct BisectArgs {
  CommonOptions common;
  InputArgs inputs;
  std::string model;
  std::string target;
  std::string reference = "cpu";
  ToleranceArgs tolerance;
  std::string out_dir;
  bool force = false;       // --force: write --out into a folder Parity did not write
  std::string batch_bytes;  // --batch-bytes: overrides the share of --max-memory for exposure
  ReportFiles report_files;
};

// The command line a reader of the repro README can paste; rebuilt from the parsed flags so it
// holds exactly what this run used (seed included).
std::vector<std::string> command_of(const BisectArgs& a) {
  std::vector<std::string> c{"parity", "bisect", a.model, "--backend", a.target, "--reference", a.reference};
  const auto inputs = input_flags(a.inputs);
  c.insert(c.end(), inputs.begin(), inputs.end());
  if (a.tolerance.atol) c.insert(c.end(), {"--atol", fmt::format("{}", *a.tolerance.atol)});
  if (a.tolerance.rtol) c.insert(c.end(), {"--rtol", fmt::format("{}", *a.tolerance.rtol)});
  if (!a.batch_bytes.empty()) c.insert(c.end(), {"--batch-bytes", a.batch_bytes});
  const auto common = a.common.as_flags();
  c.insert(c.end(), common.begin(), common.end());
  if (!a.out_dir.empty()) c.insert(c.end(), {"--out", a.out_dir});
  return c;
}

Result<bisect::BisectOptions> build_options(const BisectArgs& a) {
  bisect::BisectOptions o;
  o.model_path = a.model;
  const auto defaults = a.common.defaults();
  // Labelled apart from the reference (cpu:opt=all beside --reference cpu is cpu-2): the repro
  // folder names files by label.
  PARITY_ASSIGN_OR_RETURN(targets, parse_backends_beside(a.target, a.reference, defaults));
  if (targets.size() != 1) return usage_error("--backend takes one backend", "bisect one backend at a time");
  o.target = std::move(targets[0]);
  o.target_text = a.target;
  PARITY_ASSIGN_OR_RETURN(reference, parse_reference_spec(a.reference, defaults));
  o.reference = std::move(reference);
  o.reference_text = a.reference;
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;
  // A quarter of the memory cap: the worker holds the exposed values, their copy in the pipe
  // and the parent's copy at once, next to the model itself.
  if (limits.max_memory_bytes > 0) o.exposure_budget_bytes = limits.max_memory_bytes / 4;
  if (!a.batch_bytes.empty()) {
    PARITY_ASSIGN_OR_RETURN(b, parse_size(a.batch_bytes, "--batch-bytes"));
    o.exposure_budget_bytes = b;
  }
  PARITY_ASSIGN_OR_RETURN(inputs, build_input_settings(a.inputs));
  o.inputs = std::move(inputs);
  o.tolerance = a.tolerance.fixed();
  if (!a.out_dir.empty()) o.repro_dir = a.out_dir;
  if (const char* f = std::getenv("PARITY_TEST_FAULT")) o.test_fault_env = f;
  if (const char* f = std::getenv("PARITY_TEST_FAULT_EXPOSED")) o.exposed_test_fault_env = f;
  o.argv = command_of(a);
  return o;
}

Result<VerbOutput> run_bisect_verb(const BisectArgs& args) {
  if (!args.out_dir.empty()) PARITY_TRY(check_out_folder(args.out_dir, args.force));
  PARITY_ASSIGN_OR_RETURN(options, build_options(args));
  PARITY_ASSIGN_OR_RETURN(report, bisect::run_bisect(options, progress_for(args.common)));
  const int code = report.target_error                               ? kExitCannotRun
                   : report.first_divergent || report.final_mismatch ? kExitFinding
                                                                     : kExitOk;
  VerbOutput out{report::bisect_text(report), report::bisect_to_json(report), 2, code};
  if (report.repro_error) out.failed_outputs.push_back(*report.repro_error);
  if (args.report_files.wanted()) {
    // The culprit's attributes and weights: from the model, else (a node of an inlined If, which
    // only the rewritten copy holds) from the repro folder's isolated subgraph.
    auto facts = model::read_graph_facts(report.model);
    const auto holds_culprit = [&](const Result<model::GraphFacts>& f) {
      return f.ok() && report.first_divergent && f->producer(report.first_divergent->tensor) != nullptr;
    };
    if (!holds_culprit(facts) && report.repro_dir)
      if (auto repro = model::read_graph_facts(*report.repro_dir / "model.onnx"); holds_culprit(repro))
        facts = std::move(repro);
    add_report_documents(out, args.report_files,
                         report::bisect_document(report, facts.ok() ? &*facts : nullptr));
  }
  return out;
}

struct VerifyArgs {
  CommonOptions common;
  std::string dir;
  std::string backend;       // default: the target recorded in repro.json
  ToleranceArgs tolerance;   // default: the tolerance recorded in repro.json
  bool trust_repro = false;  // --trust-repro: use the programs, libraries and paths repro.json names
};

Result<VerbOutput> run_verify_verb(const VerifyArgs& args) {
  PARITY_ASSIGN_OR_RETURN(meta, bisect::read_repro_meta(args.dir));
  // The recorded spec replays every key bisect resolved (opt level, fallback, threads); a folder
  // from before specs were recorded gives its spec text. Either is the recorder's, not the user's:
  // programs, libraries and paths in it are used only with --trust-repro (bisect/replay_trust.h).
  // A --backend is the user's own and is used as written.
  const backend::BackendSpec given = args.common.defaults();
  backend::BackendSpec spec;
  std::vector<std::string> not_used;
  if (!args.backend.empty()) {
    PARITY_ASSIGN_OR_RETURN(parsed, parse_backend_spec(args.backend, given));
    spec = std::move(parsed);
  } else {
    backend::BackendSpec recorded;
    if (meta.target_spec) {
      recorded = *meta.target_spec;
    } else {
      PARITY_ASSIGN_OR_RETURN(parsed, parse_backend_spec(meta.target, given));
      recorded = std::move(parsed);
    }
    auto replay = bisect::replay_spec(recorded, given, args.trust_repro);
    spec = std::move(replay.spec);
    not_used = std::move(replay.not_used);
  }
  PARITY_ASSIGN_OR_RETURN(limits, args.common.limits());
  bisect::VerifyOptions o;
  o.dir = args.dir;
  o.backend = spec;
  o.tolerance = args.tolerance.fixed() ? args.tolerance.fixed() : meta.tolerance;
  o.limits = limits;
  o.not_used = std::move(not_used);
  if (const char* f = std::getenv("PARITY_TEST_FAULT")) o.test_fault_env = f;
  PARITY_ASSIGN_OR_RETURN(report, bisect::run_verify(o, progress_for(args.common)));
  const int code = report.error ? kExitCannotRun : report.still_fails ? kExitFinding : kExitOk;
  VerbOutput out{report::verify_text(report), report::verify_to_json(report), 2, code};
  if (interrupted()) {  // a replay cut short proves neither fixed nor still failing
    out.json["still_fails"] = nullptr;
    out.json["interrupted"] = true;
    out.text += "interrupted: the replay did not finish; no verdict\n";
  }
  return out;
}

void declare_bisect(CLI::App& cmd, BisectArgs& a) {
  cmd.footer(
      "Exposes MODEL's intermediate tensors, runs the reference and the target on the same inputs "
      "(each run in its own worker; browser backends in one reused Chromium), names the first "
      "tensor that diverges and the node that produced it, confirms that node on a model holding "
      "only it, and with --out writes a repro folder.\n"
      "Exit status: 0 no divergence, 1 divergence found, 2 bad invocation, 3 the target could not "
      "run.\n\n"
      "Examples:\n"
      "  parity bisect model.onnx --backend webgpu --out repro/\n"
      "  parity bisect llm.onnx --backend webgpu:opt=basic --dim batch=1 --max-memory 2G --json "
      "b.json\n"
      "  parity bisect test_x/model.onnx --backend web-jsep --load-io test_x --out repro/   (ONNX test "
      "data)\n"
      "  parity verify repro/ --backend webgpu\n"
      "  parity bisect model.onnx --backend web-webgpu --out repro/   (onnxruntime-web in Chromium; "
      "the repro also gets a standalone repro.html)");
  cmd.add_option("model", a.model, "the ONNX model")->required();
  cmd.add_option("-b,--backend", a.target, "the backend to bisect, e.g. webgpu or webgpu:opt=basic")
      ->required();
  add_reference_option(cmd, a.reference);
  add_input_options(cmd, a.inputs);
  add_tolerance_options(cmd, a.tolerance, "every tensor");
  cmd.add_option("-o,--out", a.out_dir,
                 "write a repro folder for the culprit to DIR (new, empty or Parity's own; see --force)");
  cmd.add_flag("--force", a.force, "let --out write into a folder holding files Parity did not write");
  add_report_options(cmd, a.report_files,
                     "the error of every tensor along the network with the first divergent node marked, and "
                     "the culprit's inputs, attributes and weights");
  cmd.add_option("--batch-bytes", a.batch_bytes,
                 "bytes of intermediates one run may expose (default: a quarter of --max-memory, else 1G)");
  add_common_options(cmd, a.common);
}

void declare_verify(CLI::App& cmd, VerifyArgs& a) {
  cmd.footer(
      "Runs DIR/model.onnx on DIR/test_data_set_0/input_K.pb with BACKEND and compares with the "
      "recorded reference outputs (output_K.pb).\n"
      "A repro folder is data: the runtimes it records (ORT library, browser, Chromium flags, "
      "onnxruntime-web folder, Vulkan ICD) and file paths in its options are listed, not used; the ones "
      "given here (--ort-lib, --chromium, ...) run instead, or the defaults. --trust-repro uses the "
      "recorded ones.\n"
      "Exit status: 0 fixed (matches), 1 still failing, 2 bad invocation, 3 the backend could not "
      "run.");
  cmd.add_option("dir", a.dir, "a folder written by 'parity bisect --out'")->required();
  cmd.add_option("-b,--backend", a.backend,
                 "backend spec (default: the one recorded in repro.json, every key included)");
  add_tolerance_options(cmd, a.tolerance, "every output (default: the rule recorded in repro.json)");
  cmd.add_flag("--trust-repro", a.trust_repro,
               "also use the programs, libraries and paths repro.json names (ORT library, browser, Chromium "
               "flags, onnxruntime-web folder, ICD, file options); without it they are shown, not used");
  add_common_options(cmd, a.common);
}

}  // namespace

Verb bisect_verb() {
  return make_verb<BisectArgs>(
      "bisect", "find the first tensor where a backend departs from the reference, and write a repro",
      declare_bisect, run_bisect_verb);
}

Verb verify_verb() {
  return make_verb<VerifyArgs>("verify",
                               "rerun a bisect repro folder and say whether the backend still fails",
                               declare_verify, run_verify_verb);
}

}  // namespace parity::cli
