#include "lint/fix.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/file_io.h"
#include "core/scratch_dir.h"
#include "core/text.h"
#include "model/graph_facts.h"
#include "model/model_rewrite.h"
#include "model/model_surgery.h"
#include "model/onnx_model.h"
#include "probe/exposed_run.h"

namespace parity::lint {
namespace {

namespace fs = std::filesystem;

bool wanted(const FixOptions& o, const std::string& rule) {
  return std::find(o.rules.begin(), o.rules.end(), rule) != o.rules.end() ||
         std::find(o.rules.begin(), o.rules.end(), "all") != o.rules.end();
}

// The values an island of constants hands to the rest of the graph: outputs of constant nodes
// downstream of `seeds` that a non-constant node (or the graph's output) reads.
std::vector<std::string> island_boundary(const model::GraphFacts& f, const std::vector<std::string>& seeds) {
  const std::set<std::string> constant = model::constant_nodes(f);
  std::set<std::string> island(seeds.begin(), seeds.end()), made;
  for (const auto& n : f.nodes) {  // file order: downstream constant nodes join the island
    const bool joins =
        island.count(n.name) ||
        (constant.count(n.name) &&
         std::any_of(n.inputs.begin(), n.inputs.end(), [&](const auto& in) { return made.count(in) > 0; }));
    if (!joins) continue;
    island.insert(n.name);
    for (const auto& o : n.outputs) made.insert(o);
  }
  std::vector<std::string> boundary;
  auto add = [&](const std::string& v) {
    if (made.count(v) && std::find(boundary.begin(), boundary.end(), v) == boundary.end())
      boundary.push_back(v);
  };
  for (const auto& n : f.nodes)
    if (!island.count(n.name))
      for (const auto& in : n.inputs) add(in);
  for (const auto& o : f.graph_outputs) add(o);
  return boundary;
}

std::string status_of(const probe::ProbeReport& r, const std::string& label) {
  for (const auto& b : r.backends)
    if (b.name == label) return std::string(probe::to_string(b.status));
  return "-";
}

std::string worst_detail(const probe::BackendReport& b) {
  if (b.error) return first_line(b.error->message);
  for (const auto& out : b.outputs)
    if (out.verdict == Verdict::mismatch) return out.name + ": " + out.detail;
  double worst = 0;
  for (const auto& out : b.outputs)
    if (out.comparison) worst = std::max(worst, out.comparison->max_abs);
  return fmt::format("max_abs {:.3g}", worst);
}

// The static shape of the first input of top-level node `name`, where known.
std::optional<Shape> input_shape(const model::GraphFacts& facts, const std::string& name) {
  for (const auto& candidate : facts.nodes)
    if (candidate.name == name) return facts.shape_of(candidate.input(0));
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& fixable_rules() {
  static const std::vector<std::string> kRules{"dq-blocked-1d",        "dq-per-tensor-scale",
                                               "slice-negative-step",  "conv-no-kernel-shape",
                                               "fp16-constant-island", "unsorted-graph"};
  return kRules;
}

Result<FixReport> fix_model(const FixOptions& o, const LintReport& lint,
                            const probe::ProgressSink& progress) {
  for (const auto& r : o.rules)
    if (r != "all" && std::find(fixable_rules().begin(), fixable_rules().end(), r) == fixable_rules().end())
      return make_error(ErrorKind::bad_input, Stage::parse_args,
                        "--apply " + r + ": Parity has no exact fix for it",
                        "fixable: dq-blocked-1d, dq-per-tensor-scale, slice-negative-step, "
                        "conv-no-kernel-shape, fp16-constant-island, unsorted-graph, all");
  FixReport report;
  report.out = o.out;
  PARITY_ASSIGN_OR_RETURN(facts, model::read_graph_facts(o.lint.model));
  PARITY_ASSIGN_OR_RETURN(rewriter, model::ModelRewriter::open(o.lint.model));
  PARITY_ASSIGN_OR_RETURN(scratch, ScratchDir::create("parity-fix", Stage::write_output));
  std::unique_ptr<isolate::BackendRunner> own;
  isolate::BackendRunner& runner = isolate::runner_or(o.lint.runner, own);

  for (const auto& hit : lint.hits) {
    if (!wanted(o, hit.rule)) continue;
    if (std::find(fixable_rules().begin(), fixable_rules().end(), hit.rule) == fixable_rules().end()) {
      report.skipped.push_back(hit.rule + ": no exact fix; " + hit.fix);
      continue;
    }
    const bool inside_body = std::any_of(hit.nodes.begin(), hit.nodes.end(), [&](const std::string& name) {
      return std::none_of(facts.nodes.begin(), facts.nodes.end(),
                          [&](const auto& n) { return n.name == name; });
    });
    if (inside_body && hit.rule != "unsorted-graph") {
      report.skipped.push_back(hit.rule +
                               ": its nodes sit inside If/Loop/Scan bodies, which --fix does not rewrite");
      continue;
    }
    AppliedFix applied{hit.rule, hit.nodes, ""};
    if (hit.rule == "dq-blocked-1d") {
      for (const auto& n : hit.nodes) PARITY_TRY(rewriter.expand_blocked_dequantize(n));
      applied.what = fmt::format(
          "{} DequantizeLinear: scales and zero points per element, block_size dropped", hit.nodes.size());
    } else if (hit.rule == "dq-per-tensor-scale") {
      for (const auto& n : hit.nodes) {
        const auto shape = input_shape(facts, n);
        if (!shape || shape->empty() || (*shape)[0] <= 0)
          return make_error(ErrorKind::bad_input, Stage::write_output,
                            "the rows of DequantizeLinear '" + n + "' are not known",
                            "give the input a fixed shape (--shape)");
        PARITY_TRY(rewriter.expand_per_tensor_dequantize(n, (*shape)[0]));
      }
      applied.what = fmt::format(
          "{} DequantizeLinear: the one scale and zero point repeated per row (axis 0)", hit.nodes.size());
    } else if (hit.rule == "slice-negative-step") {
      for (const auto& n : hit.nodes) {
        const auto shape = input_shape(facts, n);
        if (!shape)
          return make_error(ErrorKind::bad_input, Stage::write_output,
                            "the data shape of Slice '" + n + "' is not known",
                            "give the input a fixed shape (--shape)");
        PARITY_TRY(rewriter.rewrite_negative_step_slice(n, *shape));
      }
      applied.what =
          fmt::format("{} Slice: a forward head slice, then the reverse slice from -1", hit.nodes.size());
    } else if (hit.rule == "conv-no-kernel-shape") {
      for (const auto& n : hit.nodes) PARITY_TRY(rewriter.add_conv_kernel_shape(n));
      applied.what = fmt::format("{} Conv: kernel_shape from the weight", hit.nodes.size());
    } else if (hit.rule == "unsorted-graph") {
      PARITY_TRY(rewriter.sort_topologically());
      applied.what = "nodes written in topological order";
    } else if (hit.rule == "fp16-constant-island") {
      const std::vector<std::string> boundary = island_boundary(facts, hit.nodes);
      if (progress)
        progress("fix: computing " + std::to_string(boundary.size()) + " folded value(s) on " +
                 o.reference.label);
      PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(o.lint.model));
      PARITY_ASSIGN_OR_RETURN(plan, probe::plan_inputs(info, o.lint.inputs));
      PARITY_ASSIGN_OR_RETURN(
          values, probe::run_exposed(o.reference, o.lint.model, boundary, plan.samples.front(), o.lint.limits,
                                     scratch.path(), "island.onnx", runner));
      PARITY_ASSIGN_OR_RETURN(removed, rewriter.replace_with_constants(values));
      applied.what = fmt::format("{} node(s) folded into {} initializer(s) computed on {}", removed.size(),
                                 values.size(), o.reference.label);
    }
    report.applied.push_back(std::move(applied));
  }
  if (report.applied.empty()) return report;

  // Verify before writing: the fixed model against the original, on the reference and on every
  // linted backend (the original probed there too, for the before column).
  const fs::path candidate = scratch.path() / "fixed.onnx";
  PARITY_TRY(rewriter.save(candidate));
  probe::ProbeOptions p;
  p.reference = o.reference;
  p.inputs = o.lint.inputs;
  p.limits = o.lint.limits;
  p.runner = &runner;
  p.model_path = candidate;
  p.reference_model = o.lint.model;
  backend::BackendSpec same = o.reference;
  same.label = "fixed-on-" + o.reference.label;
  p.backends = {same};
  for (const auto& b : o.lint.backends) p.backends.push_back(b);
  if (progress) progress("fix: verifying the fixed model");
  PARITY_ASSIGN_OR_RETURN(after, probe::run_probe(p, {}));
  probe::ProbeReport before;
  if (!o.lint.backends.empty()) {
    probe::ProbeOptions q = p;
    q.model_path = o.lint.model;
    q.reference_model.reset();
    q.backends = o.lint.backends;
    PARITY_ASSIGN_OR_RETURN(measured, probe::run_probe(q, {}));
    before = std::move(measured);
  }
  for (const auto& b : after.backends) {
    if (b.is_reference) continue;
    if (b.name == same.label) {
      // Inconclusive (the reference output carries no signal) still counts when nothing differs.
      const bool identical = std::all_of(b.outputs.begin(), b.outputs.end(), [](const auto& out) {
        return out.comparison && out.comparison->max_abs == 0;
      });
      report.reference_same = b.status == probe::BackendStatus::ok ||
                              (b.status == probe::BackendStatus::inconclusive && identical);
      report.reference_detail = worst_detail(b);
      continue;
    }
    report.backends.push_back({b.name, status_of(before, b.name), std::string(probe::to_string(b.status)),
                               b.status == probe::BackendStatus::ok, worst_detail(b)});
  }
  if (!report.reference_same) return report;  // not an exact rewrite after all: nothing written
  PARITY_TRY(copy_file_to(candidate, o.out));
  report.written = true;
  return report;
}

}  // namespace parity::lint
