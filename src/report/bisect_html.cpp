#include "report/bisect_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "report/html_page.h"

namespace parity::report {
namespace {

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : fmt::format("{}", v); }

std::string metrics_text(const std::optional<Comparison>& m) {
  if (!m) return "-";
  return fmt::format("max_abs {} (bound {}){}", number(m->max_abs), number(m->bound_abs),
                     m->cosine ? fmt::format(", cosine {:.6f}", *m->cosine) : "");
}

std::string verdict_cell(const bisect::TensorReport* t) {
  if (!t || !t->compared) return "<td class=\"verdict\">not compared</td>";
  return fmt::format("<td class=\"verdict {}\">{}</td>",
                     t->verdict == Verdict::mismatch ? "verdict-mismatch" : "verdict-match",
                     t->verdict == Verdict::mismatch ? "mismatch" : "match");
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

std::string summary(const bisect::BisectReport& r) {
  std::string html = "<h2>Result</h2>";
  if (r.target_error)
    return html + "<p class=\"verdict-error\">" + html_escape(r.target_error->describe()) + "</p>";
  if (!r.first_divergent)
    return html + "<p>" +
           (r.final_mismatch ? "the outputs differ, but no compared tensor diverges first"
                             : "the target agrees with the reference on every graph output") +
           "</p>";
  const auto& f = *r.first_divergent;
  html += fmt::format(
      "<table class=\"culprit\"><tr><th>first divergent tensor</th><td>{}</td></tr>"
      "<tr><th>node</th><td>{} ({})</td></tr><tr><th>where the error comes from</th><td>{}</td></tr>"
      "<tr><th>rule</th><td class=\"verdict verdict-mismatch\"><span class=\"rule\">{}</span>"
      "<div class=\"detail\">{}</div></td></tr><tr><th>numbers</th><td>{}</td></tr>",
      html_escape(f.tensor), html_escape(f.node), html_escape(f.op_type),
      f.near_tie    ? "a near-tie flipped by rounding noise (its float inputs match)"
      : f.born_here ? "born here: its compared inputs match (or carry far smaller errors)"
                    : "inherited: an input already diverges",
      html_escape(f.failed_rule), html_escape(f.detail), metrics_text(f.metrics));
  const auto& iso = r.isolation;
  if (iso.attempted)
    html += fmt::format("<tr><th>isolated</th><td>{} in {} node(s): {}{}</td></tr>",
                        iso.reproduces ? "reproduces" : "does not reproduce", iso.nodes.size(),
                        html_escape(fmt::format("{}", fmt::join(iso.nodes, ", "))),
                        iso.metrics ? " &mdash; " + metrics_text(iso.metrics) : "");
  if (r.repro_dir)
    html += "<tr><th>repro</th><td><code>" + html_escape(r.repro_dir->string()) + "</code> (parity verify " +
            html_escape(r.repro_dir->string()) + " --backend " + html_escape(r.target) + ")</td></tr>";
  return html + "</table>";
}

std::string error_chart(const bisect::BisectReport& r) {
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
  if (labels.empty()) return "";
  return "<h2>Error through the network</h2><div class=\"note\">every compared tensor in topological order; "
         "a point above the dashed line fails its bound</div>" +
         svg_log_lines(labels, {error, bound}, "max |target - reference| per tensor (log scale)", mark);
}

std::string neighbourhood(const bisect::BisectReport& r, const model::GraphFacts* facts) {
  if (!r.first_divergent || !facts) return "";
  const model::FactNode* node = facts->producer(r.first_divergent->tensor);
  if (!node) return "";
  std::string html = fmt::format(
      "<h2>The node: {} ({})</h2><table class=\"neighbourhood\"><tr><th>input</th><th>type</th><th>shape</th>"
      "<th>is</th><th>verdict</th><th>numbers</th></tr>",
      html_escape(node->name), html_escape(node->op_type));
  for (const std::string& in : node->inputs) {
    if (in.empty()) continue;
    const auto shape = facts->shape_of(in);
    const auto* t = bisect::row_named(r.tensors, in);
    const bool weight = facts->is_constant(in);
    const bool graph_input =
        std::find(facts->graph_inputs.begin(), facts->graph_inputs.end(), in) != facts->graph_inputs.end();
    html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td></tr>", html_escape(in),
                        dtype_name(facts->type_of(in)), shape ? shape_to_string(*shape) : "?",
                        weight        ? "weight"
                        : graph_input ? "graph input"
                                      : "activation",
                        weight || graph_input ? "<td>-</td>" : verdict_cell(t),
                        t && t->metrics ? metrics_text(t->metrics) : "-");
  }
  html += "</table>";
  if (!node->attributes.empty()) {
    html += "<table class=\"attributes\"><tr><th>attribute</th><th>value</th></tr>";
    for (const auto& [name, a] : node->attributes)
      html += "<tr><td>" + html_escape(name) + "</td><td>" + html_escape(attribute_text(a)) + "</td></tr>";
    html += "</table>";
  }
  if (!r.path.empty())
    html += "<div class=\"note\">path from the input: " +
            html_escape(fmt::format("{}", fmt::join(r.path, " → "))) + "</div>";
  return html;
}

}  // namespace

std::string bisect_html(const bisect::BisectReport& r, const model::GraphFacts* facts) {
  std::vector<std::string> sections{summary(r), error_chart(r), neighbourhood(r, facts)};
  if (!r.notes.empty()) {
    std::string notes = "<h2>Notes</h2><ul>";
    for (const auto& n : r.notes) notes += "<li>" + html_escape(n) + "</li>";
    sections.push_back(notes + "</ul>");
  }
  return html_document(
      fmt::format("parity bisect {} on {}", std::filesystem::path(r.model).filename().string(), r.target),
      fmt::format(
          "reference {}; target {}{}; ORT {}; {} tensors compared by the {} method in {} backend runs, "
          "{:.1f} s; parity {}",
          r.reference, r.target, r.adapter.empty() ? "" : " on " + r.adapter, r.ort_version,
          std::count_if(r.tensors.begin(), r.tensors.end(), [](const auto& t) { return t.compared; }),
          r.method, r.backend_runs, r.wall_ms / 1000, r.parity_version),
      sections);
}

}  // namespace parity::report
