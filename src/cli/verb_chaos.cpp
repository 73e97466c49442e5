// `parity chaos`: run a model under each fault of a plan and print a robustness table.
// Compiled into parity_cli (see src/chaos/CMakeLists.txt): it uses the shared CLI options.
#include <cstdio>
#include <iostream>

#include "chaos/chaos_runner.h"
#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/verb.h"
#include "report/chaos_report.h"
#include "report/probe_json.h"

namespace parity::cli {
namespace {

struct ChaosArgs {
  CommonOptions common;
  std::string model;
  std::string backend = "webgpu";
  std::string reference = "cpu";
  std::vector<std::string> faults, dims, shapes, ranges;
  std::string plan, layer;
  uint64_t seed = 0;
  std::optional<double> atol, rtol;
  bool baseline = true;
};

Error usage(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

std::string shell_word(const std::string& s) {
  if (s.find_first_of(" '\"$;&|<>*?()") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<chaos::ChaosOptions> build_options(const ChaosArgs& a) {
  chaos::ChaosOptions o;
  o.model_path = a.model;
  const auto defaults = a.common.defaults();
  PARITY_ASSIGN_OR_RETURN(backend, parse_backend_spec(a.backend, defaults));
  o.backend = std::move(backend);
  PARITY_ASSIGN_OR_RETURN(reference, parse_backend_spec(a.reference, defaults));
  o.reference = std::move(reference);
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;
  if (!a.faults.empty() && !a.plan.empty())
    return usage("--fault and --plan are exclusive", "pass one or the other");
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

  std::string repro = "parity chaos " + shell_word(a.model) + " --backend " + shell_word(a.backend);
  for (const auto& d : a.dims) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(d, "--dim"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_int_list(kv.second, "--dim " + kv.first));
    if (v.size() != 1) return usage("--dim " + d + ": expects one integer");
    o.inputs.dims[kv.first] = v[0];
    repro += " --dim " + shell_word(d);
  }
  for (const auto& s : a.shapes) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(s, "--shape"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_int_list(kv.second, "--shape " + kv.first));
    o.inputs.shapes[kv.first] = v;
    repro += " --shape " + shell_word(s);
  }
  for (const auto& r : a.ranges) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(r, "--range"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_number_list(kv.second, "--range " + kv.first));
    if (v.size() != 2 || !(v[0] < v[1])) return usage("--range " + r + ": expects LO,HI with LO < HI");
    o.inputs.ranges[kv.first] = {v[0], v[1]};
    repro += " --range " + shell_word(r);
  }
  o.inputs.seed = a.seed;
  if (a.seed != 0) repro += " --seed " + std::to_string(a.seed);
  if (a.atol || a.rtol) o.tolerance = Tolerance{a.atol.value_or(0), a.rtol.value_or(0), {}, {}};
  o.baseline = a.baseline;
  o.repro_prefix = std::move(repro);
  return o;
}

int run(const ChaosArgs& args) {
  auto options = build_options(args);
  if (!options.ok()) return report_failure("chaos", options.error());
  chaos::ProgressSink progress;
  if (!args.common.quiet)
    progress = [](const std::string& line) { std::fprintf(stderr, "parity: %s\n", line.c_str()); };
  auto report = chaos::run_chaos(*options, progress);
  if (!report.ok()) return report_failure("chaos", report.error());

  const bool json_to_stdout = args.common.json_path == "-";
  const std::string table = report::chaos_table(*report);
  std::fputs(table.c_str(), json_to_stdout ? stderr : stdout);
  if (!args.common.json_path.empty())
    if (int rc = emit_json("chaos", args.common.json_path, report::chaos_to_json(*report)); rc != kExitOk)
      return rc;
  return report->any_crash_or_hang() ? kExitFinding : kExitOk;
}

}  // namespace

Verb chaos_verb() {
  return {
      "chaos", "run a model under injected Vulkan faults and report which ones the backend survives", false,
      [](CLI::App& cmd) -> VerbRunner {
        auto args = std::make_shared<ChaosArgs>();
        args->common.timeout_s = 120;  // a fault that hangs the backend should not cost 10 minutes
        cmd.description(
            "Runs MODEL on BACKEND once per fault, each in its own worker with the VK_LAYER_PARITY_chaos "
            "Vulkan "
            "layer injecting that fault, compares the outputs with the reference, and prints one row per "
            "fault: "
            "clean-error, crashed, hung, wrong-output or unaffected.\n"
            "Exit status: 0 no fault crashed or hung the backend, 1 some did, 2 bad invocation, 3 cannot run "
            "(no layer, reference failed).\n\n"
            "Fault spec: CALL:error[=VK_ERROR_...][@TRIGGER] | CALL:null[@TRIGGER] | "
            "vkQueueSubmit:device-lost[@TRIGGER] | mask:NAME=VALUE; ';' joins faults of one run.\n"
            "  TRIGGER: every | nth=N | from=N | p=P[,seed=S]. See docs/chaos.md.\n\n"
            "Examples:\n"
            "  parity chaos model.onnx --backend webgpu --dim batch=1\n"
            "  parity chaos model.onnx --fault 'vkCreateComputePipelines:null' --dim batch=1\n"
            "  parity chaos model.onnx --plan plan.toml --json chaos.json");
        cmd.add_option("model", args->model, "the ONNX model")->required();
        cmd.add_option("--backend", args->backend, "backend spec under test")->capture_default_str();
        cmd.add_option("--reference", args->reference, "backend spec whose outputs count as right")
            ->capture_default_str();
        cmd.add_option("--fault", args->faults, "run only this fault spec (repeatable: one row each)");
        cmd.add_option("--plan", args->plan, "TOML fault plan (default: the built-in plan)");
        cmd.add_option("--layer", args->layer, "the layer manifest parity_vk_chaos.json or its folder")
            ->envname("PARITY_CHAOS_LAYER");
        cmd.add_flag("--baseline,!--no-baseline", args->baseline,
                     "also run with the layer loaded and no fault (default: on)");
        cmd.add_option("--dim", args->dims, "symbolic dim value, SYMBOL=N (repeatable)");
        cmd.add_option("--shape", args->shapes, "whole shape of an input, NAME=D0,D1,... (repeatable)");
        cmd.add_option("--range", args->ranges, "value range of random data, NAME=LO,HI");
        cmd.add_option("--seed", args->seed, "seed of the random inputs")->capture_default_str();
        cmd.add_option("--atol", args->atol, "absolute tolerance for every output (default: by dtype)");
        cmd.add_option("--rtol", args->rtol, "relative tolerance for every output (default: by dtype)");
        add_common_options(cmd, args->common);
        return [args] { return run(*args); };
      }};
}

}  // namespace parity::cli
