// `parity chaos`: run a model under each fault of a plan and print a robustness table.
#include <cstdio>
#include <iostream>

#include "chaos/chaos_runner.h"
#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/input_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "core/shell_words.h"
#include "report/chaos_report.h"
#include "report/probe_json.h"

namespace parity::cli {
namespace {

struct ChaosArgs {
  CommonOptions common;
  std::string model;
  std::string backend = "webgpu";
  std::string reference = "cpu";
  std::vector<std::string> faults;
  std::string plan, layer;
  InputArgs inputs;
  ToleranceArgs tolerance;
  bool baseline = true;
  ReportFiles report_files;
};

Result<chaos::ChaosOptions> build_options(const ChaosArgs& a) {
  chaos::ChaosOptions o;
  o.model_path = a.model;
  const auto defaults = a.common.defaults();
  PARITY_ASSIGN_OR_RETURN(backend, parse_backend_spec(a.backend, defaults));
  o.backend = std::move(backend);
  PARITY_ASSIGN_OR_RETURN(reference, parse_reference_spec(a.reference, defaults));
  o.reference = std::move(reference);
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;
  if (!a.faults.empty() && !a.plan.empty())
    return usage_error("--fault and --plan are exclusive", "pass one or the other");
  if (!a.faults.empty()) {
    PARITY_ASSIGN_OR_RETURN(plan, chaos::plan_from_specs(a.faults));
    o.plan = std::move(plan);
  } else if (!a.plan.empty()) {
    PARITY_ASSIGN_OR_RETURN(plan, chaos::load_plan(a.plan));
    o.plan = std::move(plan);
  } else {
    o.plan = chaos::default_plan();
  }
  PARITY_ASSIGN_OR_RETURN(layer, chaos::find_layer(a.layer));
  o.layer = std::move(layer);

  PARITY_ASSIGN_OR_RETURN(inputs, build_input_settings(a.inputs));
  o.inputs = std::move(inputs);
  o.tolerance = a.tolerance.fixed();
  o.baseline = a.baseline;
  // Each row's repro line adds its --fault to this prefix.
  std::vector<std::string> repro{"parity", "chaos", a.model, "--backend", a.backend};
  const auto flags = input_flags(a.inputs);
  repro.insert(repro.end(), flags.begin(), flags.end());
  o.repro_prefix = shell_join(repro);
  return o;
}

Result<VerbOutput> run(const ChaosArgs& args) {
  PARITY_ASSIGN_OR_RETURN(options, build_options(args));
  // The faults are Vulkan calls: only the native webgpu EP (Dawn on Vulkan) makes any, so on any
  // other native backend every row would be 'unaffected' and prove nothing.
  if (options.backend.ep != "webgpu" && !backend::is_web_backend(options.backend.ep))
    return nothing_to_do("chaos", "'" + options.backend.label +
                                      "' makes no Vulkan calls, so no fault can reach it (chaos tests the "
                                      "native webgpu backend)");
  PARITY_ASSIGN_OR_RETURN(report, chaos::run_chaos(options, progress_for(args.common)));
  VerbOutput out{report::chaos_table(report), report::chaos_to_json(report), 2,
                 report.any_crash_or_hang() ? kExitFinding : kExitOk};
  if (args.report_files.wanted())
    add_report_documents(out, args.report_files, report::chaos_document(report));
  return out;
}

void declare_chaos(CLI::App& cmd, ChaosArgs& a) {
  a.common.timeout_s = 120;  // a fault that hangs the backend should not cost 10 minutes
  cmd.footer(
      "Runs MODEL on BACKEND once per fault, each in its own worker with the VK_LAYER_PARITY_chaos "
      "Vulkan "
      "layer injecting that fault, compares the outputs with the reference, and prints one row per "
      "fault: "
      "clean-error, crashed, hung, wrong-output or unaffected.\n"
      "Exit status: 0 no fault crashed or hung the backend, 1 some did, 2 bad invocation, 3 cannot run "
      "(no layer, reference failed), 4 nothing to do (a backend that makes no Vulkan calls).\n\n"
      "Fault spec: CALL:error[=VK_ERROR_...][@TRIGGER] | CALL:null[@TRIGGER] | "
      "vkQueueSubmit:device-lost[@TRIGGER] | mask:NAME=VALUE; ';' joins faults of one run.\n"
      "  TRIGGER: every | nth=N | from=N | p=P[,seed=S]. See docs/chaos.md.\n\n"
      "Examples:\n"
      "  parity chaos model.onnx --backend webgpu --dim batch=1\n"
      "  parity chaos model.onnx --fault 'vkCreateComputePipelines:null' --dim batch=1\n"
      "  parity chaos model.onnx --plan plan.toml --json chaos.json --html chaos.html");
  cmd.add_option("model", a.model, "the ONNX model")->required();
  cmd.add_option("--backend", a.backend, "backend spec under test")->capture_default_str();
  add_reference_option(cmd, a.reference);
  cmd.add_option("--fault", a.faults, "run only this fault spec (repeatable: one row each)");
  cmd.add_option("--plan", a.plan, "TOML fault plan (default: the built-in plan)");
  cmd.add_option("--layer", a.layer, "the layer manifest parity_vk_chaos.json or its folder")
      ->envname("PARITY_CHAOS_LAYER");
  add_switch(cmd, "baseline", a.baseline, "also run with the layer loaded and no fault");
  add_input_options(cmd, a.inputs);
  add_tolerance_options(cmd, a.tolerance, "every output");
  add_report_options(
      cmd, a.report_files,
      "the robustness table with outcome colours and the one-line repro of every crash or hang");
  add_common_options(cmd, a.common);
}

}  // namespace

Verb chaos_verb() {
  return make_verb<ChaosArgs>(
      "chaos", "run a model under injected Vulkan faults and report which ones the backend survives",
      declare_chaos, run);
}

}  // namespace parity::cli
