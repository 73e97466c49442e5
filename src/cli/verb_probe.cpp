// `parity probe`: run one model on several backends and say whether each output is right.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/input_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "core/out_folder.h"
#include "probe/probe.h"
#include "report/probe_document.h"
#include "report/probe_json.h"
#include "report/probe_table.h"

namespace parity::cli {
namespace {

struct ProbeArgs {
  CommonOptions common;
  std::string model;
  std::string backends = "cpu";
  std::string reference = "cpu";
  InputArgs inputs;  // --dim/--shape/--range/--input/--resize/--seed/--load-io, shared with bisect
  std::vector<std::string> tols;
  int samples = 1;
  ToleranceArgs tolerance;
  std::string save_io;
  bool force = false;  // --force: let --save-io write into a folder Parity did not write
  ReportFiles report_files;
  bool allow_inconclusive = false;
  std::string noise_from;
  bool one_at_a_time = false;
};

Result<probe::ProbeOptions> build_options(const ProbeArgs& a) {
  probe::ProbeOptions o;
  o.model_path = a.model;
  const auto defaults = a.common.defaults();
  PARITY_ASSIGN_OR_RETURN(backends, parse_backends_beside(a.backends, a.reference, defaults));
  o.backends = std::move(backends);
  PARITY_ASSIGN_OR_RETURN(reference, parse_reference_spec(a.reference, defaults));
  o.reference = std::move(reference);
  if (!a.noise_from.empty()) {
    PARITY_ASSIGN_OR_RETURN(noise, parse_backend_spec(a.noise_from, defaults));
    o.noise_from = std::move(noise);
  }
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;

  PARITY_ASSIGN_OR_RETURN(in, build_input_settings(a.inputs));
  PARITY_ASSIGN_OR_RETURN(per_output, parse_tolerance_list(a.tols, "NAME=ATOL,RTOL"));
  for (auto& [name, tol] : per_output) o.output_tolerance[name] = tol;
  o.tolerance = a.tolerance.fixed();
  in.samples = a.samples;
  o.inputs = std::move(in);
  if (!a.save_io.empty()) {
    PARITY_TRY(check_out_folder(a.save_io, a.force, "--save-io"));
    o.save_io = a.save_io;
  }
  o.keep_outputs = a.report_files.wanted();
  o.one_at_a_time = a.one_at_a_time;
  if (const char* fault = std::getenv("PARITY_TEST_FAULT")) o.test_fault_env = fault;
  return o;
}

Result<VerbOutput> run(const ProbeArgs& args) {
  PARITY_ASSIGN_OR_RETURN(options, build_options(args));
  PARITY_ASSIGN_OR_RETURN(report, probe::run_probe(options, progress_for(args.common)));
  VerbOutput out{report::probe_table(report), report::probe_to_json(report), 2,
                 report.all_ok(args.allow_inconclusive) ? kExitOk : kExitFinding};
  if (report.save_io_error) out.failed_outputs.push_back(*report.save_io_error);
  if (args.report_files.wanted())
    add_report_documents(out, args.report_files, report::probe_document(report));
  return out;
}

void declare_probe(CLI::App& cmd, ProbeArgs& a) {
  cmd.footer(
      "Runs MODEL on each backend in its own worker process, compares every output with the reference "
      "backend, and prints one row per backend. Native backends run at once (a CPU reference beside a GPU "
      "target costs the longer run, not the sum), browser backends in turn; --one-at-a-time runs them "
      "all in turn.\n"
      "Exit status: 0 all backends agree, 1 a mismatch, a failed backend or an inconclusive row (the "
      "reference output is all zeros, constant or NaN, so agreeing with it proves nothing), 2 bad "
      "invocation or unreadable model.\n"
      "Outputs are judged by |a - e| <= max(atol, scale*max|ref|) + rtol*|ref| per element, by dtype "
      "(float32: atol 1e-4, scale 1e-4, rtol 1e-3); --atol/--rtol/--tol replace it with a fixed rule. "
      "See docs/probe.md.\n\n"
      "Backends: [LABEL=]EP[:KEY=VALUE]..., e.g. cpu, webgpu:opt=basic, webgpu:fallback=off,\n"
      "  old=cpu:ort-lib=/path/libonnxruntime.so.1\n"
      "  keys: opt, fallback, ort-lib, adapter, threads, nodes, max-memory (this worker's cap),\n"
      "  vk-mask=LIMIT=VALUE (webgpu: the device reports a smaller limit), so.CONFIG_KEY; any other key\n"
      "  is an EP provider option.\n"
      "Browser backends (onnxruntime-web in headless Chromium): web-wasm, web-jsep, web-webgpu, e.g.\n"
      "  web-webgpu:layout=NHWC, old=web-jsep:ort-web=1.22.0\n"
      "  keys: ort-web, opt, threads, layout, fallback, log, check, so.CONFIG_KEY; see docs/browser.md.\n\n"
      "Examples:\n"
      "  parity probe model.onnx --backends cpu,webgpu --dim batch=1\n"
      "  parity probe det.onnx --backends webgpu --input x=photo.png --resize x=640,640 --json out.json\n"
      "  parity probe llm.onnx -b webgpu --shape input_ids=1,128 --range input_ids=0,32000 --samples 4\n"
      "  parity probe sr.onnx --backends cpu,web-wasm,web-jsep,web-webgpu --input x=photo.png\n"
      "  parity probe det.onnx -b cpu,webgpu,web-webgpu --input x=photo.png --resize x=640,640 --html "
      "det.html");
  cmd.add_option("model", a.model, "the ONNX model")->required();
  cmd.add_option("-b,--backends", a.backends, "comma-separated backend specs")->capture_default_str();
  add_reference_option(cmd, a.reference);
  add_input_options(cmd, a.inputs);
  cmd.add_option("--samples", a.samples, "compare on N seeded inputs and report the worst")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_tolerance_options(cmd, a.tolerance, "every output");
  cmd.add_option("--tol", a.tols, "tolerance of one output, NAME=ATOL,RTOL (repeatable)");
  cmd.add_option("--noise-from", a.noise_from,
                 "a second backend that should be right too (e.g. noopt=cpu:opt=disabled, web-wasm): "
                 "its spread from the reference, x2, widens every other backend's bound; its row is "
                 "evidence and does not set the exit status");
  cmd.add_flag("--allow-inconclusive", a.allow_inconclusive,
               "exit 0 when rows are only inconclusive (their reference output carries no signal)");
  cmd.add_flag("--one-at-a-time", a.one_at_a_time,
               "run the backends one after another: create/run times free of contention, one session in "
               "memory at a time");
  add_report_options(cmd, a.report_files,
                     "verdict grid, adapters, and for image-like outputs each backend's picture, per-channel "
                     "means and a difference heat map");
  cmd.add_option("--save-io", a.save_io,
                 "write inputs and every backend's outputs to DIR in the ONNX test-data layout (new, empty "
                 "or Parity's own; see --force)");
  cmd.add_flag("--force", a.force, "let --save-io write into a folder holding files Parity did not write");
  add_common_options(cmd, a.common);
}

}  // namespace

Verb probe_verb() {
  return make_verb<ProbeArgs>("probe",
                              "run a model on several backends and check every output against a reference",
                              declare_probe, run);
}

}  // namespace parity::cli
