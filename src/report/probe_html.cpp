#include "report/probe_html.h"

#include <fmt/format.h>

#include <cmath>

#include "core/text.h"
#include "report/html_page.h"
#include "report/tensor_picture.h"

namespace parity::report {
namespace {

// The difference heat map is white where a backend is off by this share of the reference's range.
constexpr double kFullScaleShare = 0.1;

// What a grid cell says, and (as "verdict-<word>") its colour.
std::string verdict_word(const probe::BackendReport& b, const probe::OutputReport& o) {
  if (b.is_reference) return "reference";
  if (o.verdict == Verdict::mismatch) return "mismatch";
  return o.inconclusive.empty() ? "match" : "inconclusive";
}

std::string backends_table(const probe::ProbeReport& r) {
  std::string html =
      "<h2>Backends</h2><table class=\"backends\"><tr><th>backend</th><th>EP</th><th>status</th>"
      "<th>runtime</th><th>adapter</th><th>nodes on EP / CPU</th><th>create + run</th></tr>";
  for (const auto& b : r.backends) {
    const std::string status = std::string(probe::to_string(b.status)) +
                               (b.is_reference ? " (reference)" : "") + (b.is_noise ? " (noise)" : "");
    const std::string klass = b.is_reference                                   ? "verdict-reference"
                              : b.error                                        ? "verdict-error"
                              : b.status == probe::BackendStatus::ok           ? "verdict-match"
                              : b.status == probe::BackendStatus::inconclusive ? "verdict-inconclusive"
                                                                               : "verdict-mismatch";
    html += fmt::format(
        "<tr data-backend=\"{0}\"><td>{0}</td><td>{1}</td><td class=\"status {2}\">{3}{4}</td><td>{5}</td>"
        "<td>{6}</td><td>{7}</td><td>{8}</td></tr>",
        html_escape(b.name), html_escape(b.ep), klass, html_escape(status),
        b.error ? "<div class=\"detail\">" + html_escape(b.error->describe()) + "</div>" : "",
        html_escape(b.ort_version.empty() ? "-" : "ORT " + b.ort_version),
        html_escape(b.adapter.empty() ? "-" : b.adapter),
        b.nodes_on_backend < 0
            ? "-"
            : fmt::format("{} / {}", b.nodes_on_backend, std::max<int64_t>(b.nodes_on_cpu, 0)),
        b.error ? "-" : fmt::format("{:.0f} ms + {:.0f} ms", b.create_ms, b.run_ms));
  }
  return html + "</table>";
}

std::string verdict_grid(const probe::ProbeReport& r) {
  const probe::BackendReport* ref = nullptr;
  for (const auto& b : r.backends)
    if (b.is_reference) ref = &b;
  if (!ref || ref->outputs.empty()) return "";
  std::string html = "<h2>Outputs</h2><table class=\"grid\"><tr><th>backend</th>";
  for (const auto& o : ref->outputs) html += "<th>" + html_escape(o.name) + "</th>";
  html += "</tr>";
  for (const auto& b : r.backends) {
    html += "<tr><th>" + html_escape(b.name) + "</th>";
    for (const auto& want : ref->outputs) {
      const probe::OutputReport* o = nullptr;
      for (const auto& got : b.outputs)
        if (got.name == want.name) o = &got;
      if (b.error || !o) {
        html += "<td class=\"verdict verdict-error\">" +
                html_escape(b.error ? std::string(to_string(b.error->kind)) : "no output") + "</td>";
        continue;
      }
      const std::string word = verdict_word(b, *o);
      html +=
          fmt::format("<td class=\"verdict verdict-{0}\" data-output=\"{1}\"><span class=\"rule\">{0}</span>",
                      word, html_escape(o->name));
      if (o->verdict == Verdict::mismatch)
        html += "<div class=\"detail\">rule " + html_escape(o->failed_rule) + ": " + html_escape(o->detail) +
                "</div>";
      else if (o->comparison)
        html +=
            fmt::format("<div class=\"detail\">max_abs {:.3g}{}</div>", o->comparison->max_abs,
                        o->comparison->cosine ? fmt::format(", cosine {:.6f}", *o->comparison->cosine) : "");
      if (!o->inconclusive.empty())
        html += "<div class=\"detail\">" + html_escape(o->inconclusive) + "</div>";
      html += "</td>";
    }
    html += "</tr>";
  }
  return html + "</table>";
}

// One image-like output: the means chart, then the pictures and the heat maps.
std::string picture_section(const probe::ProbeReport& r, const probe::OutputReport& ref_out) {
  if (!ref_out.tensor || !picture_layout(ref_out.tensor->shape())) return "";
  const Tensor& reference = *ref_out.tensor;
  const double lo = ref_out.reference_stats.min, hi = ref_out.reference_stats.max;
  const double range = std::isfinite(hi - lo) && hi > lo ? hi - lo : 1.0;
  std::vector<std::string> groups;
  std::vector<BarSeries> series;
  std::string pictures, heatmaps;
  for (const auto& b : r.backends)
    for (const auto& o : b.outputs) {
      if (o.name != ref_out.name || !o.tensor) continue;
      // Each backend against the reference of its own worst sample.
      const Tensor& against = o.reference_tensor ? *o.reference_tensor : reference;
      const std::vector<double> means = channel_means(*o.tensor);
      if (groups.empty())
        for (std::size_t c = 0; c < means.size(); ++c) groups.push_back("ch " + std::to_string(c));
      series.push_back({b.name, means});
      if (auto p = draw_tensor(*o.tensor, lo, hi))
        pictures += html_png(
            p->png, p->width, p->height,
            fmt::format("{}{}: mean {:.4g}", b.name, b.is_reference ? " (reference)" : "", o.stats.mean));
      if (!b.is_reference)
        if (auto d = draw_difference(*o.tensor, against, 1.0 / (kFullScaleShare * range)))
          heatmaps +=
              html_png(d->png, d->width, d->height,
                       fmt::format("|{} - reference|, white at {:.3g} ({:.0f}% of the reference's range); "
                                   "max_abs {:.3g}",
                                   b.name, kFullScaleShare * range, 100 * kFullScaleShare,
                                   o.comparison ? o.comparison->max_abs : std::nan("")),
                       "heatmap");
    }
  const auto layout = picture_layout(reference.shape());
  std::string html = fmt::format(
      "<section class=\"output\" data-output=\"{0}\"><h2>Output {0}</h2><div class=\"note\">{1} {2}, drawn "
      "as "
      "{3} channel(s) of {4}x{5}, values {6:.4g}..{7:.4g} (the reference's range) mapped to "
      "black..white</div>",
      html_escape(ref_out.name), dtype_name(ref_out.dtype), shape_to_string(ref_out.shape), layout->channels,
      layout->height, layout->width, lo, hi);
  html += svg_grouped_bars(groups, series, "mean per channel: reference vs each backend");
  html += "<div class=\"pictures\">" + pictures + "</div>";
  if (!heatmaps.empty()) html += "<h3>Where they differ</h3><div class=\"pictures\">" + heatmaps + "</div>";
  return html + "</section>";
}

}  // namespace

std::string probe_html(const probe::ProbeReport& r) {
  std::string inputs;
  for (const auto& in : r.inputs)
    inputs += (inputs.empty() ? "" : ", ") +
              fmt::format("{} {}{}", in.info.name, dtype_name(in.info.dtype), shape_to_string(in.shape));
  std::vector<std::string> sections{backends_table(r), verdict_grid(r)};
  for (const auto& b : r.backends)
    if (b.is_reference)
      for (const auto& o : b.outputs) sections.push_back(picture_section(r, o));
  return html_document(
      "parity probe " + r.model.path.filename().string(),
      fmt::format("inputs {}; reference {}; {} sample{}, seed {}; parity {}", inputs, r.reference, r.samples,
                  r.samples == 1 ? "" : "s", r.seed, r.parity_version),
      sections);
}

}  // namespace parity::report
