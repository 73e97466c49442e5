#include "hunt/finding_folder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "bisect/repro_folder.h"
#include "bisect/verify.h"
#include "core/file_io.h"
#include "core/utc_time.h"
#include "isolate/protocol.h"
#include "lint/finding_record.h"
#include "parity/version.h"

namespace parity::hunt {

namespace fs = std::filesystem;

Status write_finding_folder(const Finding& f, const model::OpModel& op,
                            const std::vector<NamedTensor>& inputs, const std::vector<NamedTensor>& expected,
                            const std::vector<NamedTensor>& observed, const FolderFacts& facts,
                            const fs::path& dir) {
  PARITY_TRY(bisect::write_test_data_set(dir, facts.target.label, inputs, expected, observed));
  PARITY_TRY(model::write_op_model(op, dir / "model.onnx"));
  const auto nodes = model::op_node_names(op);
  // A reduced random graph's wrong node is its last (the shortest failing prefix ends there).
  const bool graph = model::is_graph(op) && !op.nodes.empty();
  const std::string& node = graph ? nodes.back() : nodes.front();
  const std::string tensor = graph ? op.nodes.back().outputs[0] : op.outputs.empty() ? "" : op.outputs[0];
  const std::string culprit_op = graph ? op.nodes.back().op_type : op.op_type;
  const nlohmann::json repro{
      {"schema", bisect::kReproSchema},
      {"parity_version", std::string(kParityVersion)},
      {"model", "hunt: " + f.space + " " + point_text(f.point)},
      {"target", facts.target.label},
      {"reference", facts.reference.label},
      {"target_spec", isolate::spec_to_json(facts.target)},
      {"reference_spec", isolate::spec_to_json(facts.reference)},
      {"tolerance", nullptr},
      {"command", facts.command},
      {"seed", f.seed},
      {"ort_version", facts.runtime_version},
      {"adapter", facts.adapter},
      {"culprit", {{"tensor", tensor}, {"node", node}, {"op_type", culprit_op}}},
      {"nodes", nodes},
      {"reproduces", true},
      {"measured", f.measured},
      {"hunt", {{"space", f.space}, {"point", f.point}, {"cases", f.cases}, {"description", f.description}}}};
  PARITY_TRY(write_text_file(dir / "repro.json", repro.dump(2) + "\n"));

  lint::FindingRecord record;
  record.folder = dir;
  record.id = f.id;
  record.rule = "hunt-" + f.space;  // no lint rule predicts it yet; lint skips records of rules it lacks
  record.title = f.description;
  record.backends = {f.target_ep};
  record.runs = {{f.target_ep, facts.runtime_version, true, f.measured, facts.adapter, utc_now("%Y-%m-%d")}};
  PARITY_TRY(lint::write_finding(record));

  std::string edges;
  for (const auto& b : f.boundaries)
    edges += fmt::format("| {} | {} | {} | {} | {} |\n", b.param, b.meaning, value_text(b.value),
                         values_list(b.failing), values_list(b.passing));
  const std::string readme = fmt::format(
      "# {}\n\n{}\n\nFound by `parity hunt` (Parity {}): case{} {} of the hunt below, reduced in {} runs.\n\n"
      "- op: `{}` (space `{}`), {}\n- backend: `{}` (EP {}), ONNX Runtime {}\n- adapter: {}\n"
      "- reference: `{}`\n- measured: {}\n\n"
      "## Boundary\n\nEach parameter of the reduced point and its neighbours, by outcome on `{}`:\n\n"
      "| parameter | meaning | value | neighbours that fail too | neighbours that pass "
      "|\n|---|---|---|---|---|\n{}\n"
      "## Files\n\n- `model.onnx`: the {} model\n- `test_data_set_0/input_K.pb`: its inputs\n"
      "- `test_data_set_0/output_K.pb`: the reference's outputs (expected)\n"
      "- `test_data_set_0/{}/output_K.pb`: what the target returned\n\n"
      "## Reproduce\n\n```\nparity verify {}\n```\n\nexits 1 while the target still diverges, 0 once it is "
      "fixed. Found with:\n\n"
      "```\n{}\n```\n",
      f.id, f.description, kParityVersion, f.cases.size() == 1 ? "" : "s", fmt::join(f.cases, ", "),
      f.reduce_runs, f.op_type.empty() ? op.op_type : f.op_type, f.space,
      nodes.size() == 1 ? std::string("one node") : fmt::format("nodes {}", fmt::join(nodes, " -> ")),
      facts.target.label, facts.target.ep, facts.runtime_version.empty() ? "?" : facts.runtime_version,
      facts.adapter.empty() ? "-" : facts.adapter, facts.reference.label, f.measured, facts.target.label,
      edges, nodes.size() == 1 ? std::string("one-node") : fmt::format("{}-node", nodes.size()),
      safe_file_name(facts.target.label), dir.string(), facts.command);
  return write_text_file(dir / "README.md", readme);
}

}  // namespace parity::hunt
