// `parity inspect`: what a model takes and returns, how big it is and which ops it uses, read
// from the file alone (no backend runs), with the --dim/--shape flags it still needs.
#include "cli/common_options.h"
#include "cli/input_options.h"
#include "cli/verb.h"
#include "model/onnx_model.h"
#include "report/model_summary.h"

namespace parity::cli {
namespace {

struct InspectArgs {
  std::string model;
  InputArgs inputs;  // --dim/--shape given here narrow "to run it" to what is still missing
  std::string json_path;
};

Result<VerbOutput> run(const InspectArgs& a) {
  PARITY_ASSIGN_OR_RETURN(settings, build_input_settings(a.inputs));
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(a.model));
  const probe::MissingShapes missing = probe::find_missing_shapes(info, settings);
  return VerbOutput{report::model_summary(info, missing), report::model_summary_to_json(info, missing)};
}

void declare_inspect(CLI::App& cmd, InspectArgs& a) {
  cmd.footer(
      "Reads MODEL (nothing runs) and prints its inputs and outputs with dtypes and dims, opsets, "
      "producer, node count, an op histogram, initializer bytes and control-flow nodes (If/Loop/Scan, "
      "which bisect treats as one node). Symbolic or unknown input dims are listed together with "
      "ready-to-paste --dim/--shape flags for probe and bisect.\n"
      "Exit status: 0 described, 2 unreadable model or bad flags.\n\n"
      "Examples:\n"
      "  parity inspect model.onnx\n"
      "  parity inspect cls.onnx --dim batch=1 --json cls.json");
  cmd.add_option("model", a.model, "the ONNX model")->required();
  cmd.add_option("--dim", a.inputs.dims, "a symbolic dim already chosen, SYMBOL=N (repeatable)");
  cmd.add_option("--shape", a.inputs.shapes, "a whole input shape already chosen, NAME=D0,D1,...");
  cmd.add_option("--json", a.json_path, "also write the description as JSON to FILE ('-' for stdout)");
}

}  // namespace

Verb inspect_verb() {
  return make_verb<InspectArgs>(
      "inspect", "describe a model: inputs, outputs, opsets, ops, weights, and the flags it needs to run",
      declare_inspect, run);
}

}  // namespace parity::cli
