#include "report/bisect_document.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "report/svg_chart.h"

namespace parity::report {
namespace {

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : fmt::format("{}", v); }

std::string metrics_text(const std::optional<Comparison>& m) {
  if (!m) return "-";
  return fmt::format("max_abs {} (bound {}){}", number(m->max_abs), number(m->bound_abs),
                     m->cosine ? fmt::format(", cosine {:.6f}", *m->cosine) : "");
}

Cell verdict_cell(const bisect::TensorReport* t) {
  if (!t || !t->compared) return {"not compared"};
  const std::string word = t->verdict == Verdict::mismatch ? "mismatch" : "match";
  return Cell(word, word);
}

std::string attribute_text(const model::Attribute& a) {
  using K = model::Attribute::Kind;
  switch (a.kind) {
    case K::integer: return std::to_string(a.i);
    case K::integers: return fmt::format("[{}]", fmt::join(a.ints, ", "));
    case K::real: return number(a.f);
    case K::reals: return fmt::format("[{}]", fmt::join(a.floats, ", "));
    case K::text: return "\"" + a.s + "\"";
    case K::tensor: return "a tensor";
    case K::graph: return "a graph";
    case K::other: break;
  }
  return "?";
}

Row key_value(std::string key, Cell value) { return {{{std::move(key)}, std::move(value)}, {}, true}; }

Section summary(const bisect::BisectReport& r) {
  Section s{"Result", {}, {}};
  if (r.target_error) {
    s.blocks.push_back(Paragraph{r.target_error->describe(), "verdict-error"});
    return s;
  }
  if (!r.first_divergent) {
    s.blocks.push_back(Paragraph{r.final_mismatch
                                     ? "the outputs differ, but no compared tensor diverges first"
                                     : "the target agrees with the reference on every graph output"});
    return s;
  }
  const auto& f = *r.first_divergent;
  Table t{"culprit", {}, {}};
  t.rows.push_back(key_value("first divergent tensor", {f.tensor}));
  t.rows.push_back(key_value("node", {f.node + " (" + f.op_type + ")"}));
  t.rows.push_back(
      key_value("where the error comes from",
                {f.near_tie    ? "a near-tie flipped by rounding noise (its float inputs match)"
                 : f.born_here ? "born here: its compared inputs match (or carry far smaller errors)"
                               : "inherited: an input already diverges"}));
  t.rows.push_back(key_value("rule", Cell(f.failed_rule, "mismatch", f.detail)));
  t.rows.push_back(key_value("numbers", {metrics_text(f.metrics)}));
  const auto& iso = r.isolation;
  if (iso.attempted)
    t.rows.push_back(
        key_value("isolated",
                  {fmt::format("{} in {} node(s): {}{}", iso.reproduces ? "reproduces" : "does not reproduce",
                               iso.nodes.size(), fmt::join(iso.nodes, ", "),
                               iso.metrics ? " — " + metrics_text(iso.metrics) : "")}));
  s.blocks.push_back(std::move(t));
  if (r.repro_dir)
    s.blocks.push_back(Commands{{"parity verify " + r.repro_dir->string() + " --backend " + r.target}});
  return s;
}

Section error_chart(const bisect::BisectReport& r) {
  std::vector<std::string> labels;
  LineSeries error{"max |target - reference|", {}, false}, bound{"bound it was judged by", {}, true};
  std::optional<std::size_t> mark;
  for (const auto& t : r.tensors) {
    if (!t.compared || !t.metrics) continue;
    if (r.first_divergent && t.name == r.first_divergent->tensor) mark = labels.size();
    labels.push_back(t.name + " (" + t.op_type + ")");
    error.values.push_back(t.metrics->max_abs);
    // An exact comparison (integer and shape tensors) has no bound to draw.
    bound.values.push_back(t.metrics->bound_abs > 0 ? t.metrics->bound_abs : std::nan(""));
  }
  if (labels.empty()) return {};
  const std::string title = "max |target - reference| per tensor (log scale)";
  return {
      "Error through the network",
      {},
      {Paragraph{"every compared tensor in topological order; a point above the dashed line fails its bound",
                 "note"},
       Chart{svg_log_lines(labels, {error, bound}, title, mark), title}}};
}

Section neighbourhood(const bisect::BisectReport& r, const model::GraphFacts* facts) {
  if (!r.first_divergent || !facts) return {};
  const model::FactNode* node = facts->producer(r.first_divergent->tensor);
  if (!node) return {};
  Table inputs{"neighbourhood", {"input", "type", "shape", "is", "verdict", "numbers"}, {}};
  for (const std::string& in : node->inputs) {
    if (in.empty()) continue;
    const auto shape = facts->shape_of(in);
    const auto* t = bisect::row_named(r.tensors, in);
    const bool weight = facts->is_constant(in);
    const bool graph_input =
        std::find(facts->graph_inputs.begin(), facts->graph_inputs.end(), in) != facts->graph_inputs.end();
    inputs.rows.push_back({{{in},
                            {std::string(dtype_name(facts->type_of(in)))},
                            {shape ? shape_to_string(*shape) : "?"},
                            {weight        ? "weight"
                             : graph_input ? "graph input"
                                           : "activation"},
                            weight || graph_input ? Cell{"-"} : verdict_cell(t),
                            {t && t->metrics ? metrics_text(t->metrics) : "-"}}});
  }
  Section s{"The node: " + node->name + " (" + node->op_type + ")", {}, {std::move(inputs)}};
  if (!node->attributes.empty()) {
    Table attributes{"attributes", {"attribute", "value"}, {}};
    for (const auto& [name, a] : node->attributes) attributes.rows.push_back({{{name}, {attribute_text(a)}}});
    s.blocks.push_back(std::move(attributes));
  }
  if (!r.path.empty())
    s.blocks.push_back(Paragraph{fmt::format("path from the input: {}", fmt::join(r.path, " → ")), "note"});
  return s;
}

}  // namespace

Document bisect_document(const bisect::BisectReport& r, const model::GraphFacts* facts) {
  Document doc{
      fmt::format("parity bisect {} on {}", std::filesystem::path(r.model).filename().string(), r.target),
      fmt::format(
          "reference {}; target {}{}; ORT {}; {} tensors compared by the {} method in {} backend runs, "
          "{:.1f} s; parity {}",
          r.reference, r.target, r.adapter.empty() ? "" : " on " + r.adapter, r.ort_version,
          std::count_if(r.tensors.begin(), r.tensors.end(), [](const auto& t) { return t.compared; }),
          r.method, r.backend_runs, r.wall_ms / 1000, r.parity_version),
      {summary(r), error_chart(r), neighbourhood(r, facts)}};
  if (!r.notes.empty()) doc.sections.push_back({"Notes", {}, {BulletList{r.notes}}});
  return doc;
}

}  // namespace parity::report
