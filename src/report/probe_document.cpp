#include "report/probe_document.h"

#include <fmt/format.h>

#include <cmath>

#include "core/text.h"
#include "report/probe_table.h"
#include "report/svg_chart.h"
#include "report/tensor_picture.h"

namespace parity::report {
namespace {

// The difference heat map is white where a backend is off by this share of the reference's range.
constexpr double kFullScaleShare = 0.1;

// What a grid cell says, and its colour.
std::string verdict_word(const probe::BackendReport& b, const probe::OutputReport& o) {
  if (b.is_reference) return "reference";
  if (o.verdict == Verdict::mismatch) return "mismatch";
  return o.inconclusive.empty() ? "match" : "inconclusive";
}

Section backends_section(const probe::ProbeReport& r) {
  Table t{
      "backends", {"backend", "EP", "status", "runtime", "adapter", "nodes on EP / CPU", "create + run"}, {}};
  for (const auto& b : r.backends) {
    const std::string tone = b.is_reference                                   ? "reference"
                             : b.error                                        ? "error"
                             : b.status == probe::BackendStatus::ok           ? "match"
                             : b.status == probe::BackendStatus::inconclusive ? "inconclusive"
                                                                              : "mismatch";
    t.rows.push_back({{{b.name},
                       {b.ep},
                       Cell(std::string(probe::to_string(b.status)) + (b.is_reference ? " (reference)" : "") +
                                (b.is_noise ? " (noise)" : ""),
                            tone, b.error ? b.error->describe() : ""),
                       {b.ort_version.empty() ? "-" : "ORT " + b.ort_version},
                       {b.adapter.empty() ? "-" : b.adapter},
                       {b.nodes_on_backend < 0 ? "-"
                                               : fmt::format("{} / {}", b.nodes_on_backend,
                                                             std::max<int64_t>(b.nodes_on_cpu, 0))},
                       {b.error ? "-" : fmt::format("{:.0f} ms + {:.0f} ms", b.create_ms, b.run_ms)}},
                      {{"backend", b.name}}});
  }
  return {"Backends", {}, {std::move(t)}};
}

Section verdict_section(const probe::ProbeReport& r) {
  const probe::BackendReport* ref = nullptr;
  for (const auto& b : r.backends)
    if (b.is_reference) ref = &b;
  if (!ref || ref->outputs.empty()) return {};
  Table t{"grid", {"backend"}, {}};
  for (const auto& o : ref->outputs) t.columns.push_back(o.name);
  for (const auto& b : r.backends) {
    Row row{{{b.name}}, {}, true};
    for (const auto& want : ref->outputs) {
      const probe::OutputReport* o = nullptr;
      for (const auto& got : b.outputs)
        if (got.name == want.name) o = &got;
      if (b.error || !o) {
        row.cells.push_back(Cell(b.error ? std::string(to_string(b.error->kind)) : "no output", "error"));
        continue;
      }
      Cell c = Cell(verdict_word(b, *o), verdict_word(b, *o)).with_data({{"output", o->name}});
      if (o->verdict == Verdict::mismatch)
        c.detail = "rule " + o->failed_rule + ": " + o->detail;
      else if (o->comparison)
        c.detail =
            fmt::format("max_abs {:.3g}{}", o->comparison->max_abs,
                        o->comparison->cosine ? fmt::format(", cosine {:.6f}", *o->comparison->cosine) : "");
      if (!o->inconclusive.empty()) c.detail += (c.detail.empty() ? "" : "; ") + o->inconclusive;
      row.cells.push_back(std::move(c));
    }
    t.rows.push_back(std::move(row));
  }
  return {"Outputs", {}, {std::move(t)}};
}

// One image-like output: the means chart, then the pictures and the heat maps.
Section picture_section(const probe::ProbeReport& r, const probe::OutputReport& ref_out) {
  if (!ref_out.tensor || !picture_layout(ref_out.tensor->shape())) return {};
  const Tensor& reference = *ref_out.tensor;
  const double lo = ref_out.reference_stats.min, hi = ref_out.reference_stats.max;
  const double range = std::isfinite(hi - lo) && hi > lo ? hi - lo : 1.0;
  std::vector<std::string> groups;
  std::vector<BarSeries> series;
  Gallery pictures, heatmaps;
  for (const auto& b : r.backends)
    for (const auto& o : b.outputs) {
      if (o.name != ref_out.name || !o.tensor) continue;
      // Each backend against the reference of its own worst sample.
      const Tensor& against = o.reference_tensor ? *o.reference_tensor : reference;
      const std::vector<double> means = channel_means(*o.tensor);
      if (groups.empty())
        for (std::size_t c = 0; c < means.size(); ++c) groups.push_back("ch " + std::to_string(c));
      series.push_back({b.name, means});
      if (auto p = draw_tensor(*o.tensor, lo, hi)) {
        p->caption =
            fmt::format("{}{}: mean {:.4g}", b.name, b.is_reference ? " (reference)" : "", o.stats.mean);
        pictures.pictures.push_back(std::move(*p));
      }
      if (!b.is_reference)
        if (auto d = draw_difference(*o.tensor, against, 1.0 / (kFullScaleShare * range))) {
          d->caption = fmt::format(
              "|{} - reference|, white at {:.3g} ({:.0f}% of the reference's range); max_abs {:.3g}", b.name,
              kFullScaleShare * range, 100 * kFullScaleShare,
              o.comparison ? o.comparison->max_abs : std::nan(""));
          d->css_class = "heatmap";
          heatmaps.pictures.push_back(std::move(*d));
        }
    }
  const auto layout = picture_layout(reference.shape());
  const std::string title = "mean per channel: reference vs each backend";
  Section s{"Output " + ref_out.name, {{"output", ref_out.name}}, {}};
  s.blocks.push_back(Paragraph{
      fmt::format(
          "{} {}, drawn as {} channel(s) of {}x{}, values {:.4g}..{:.4g} (the reference's range) mapped "
          "to black..white",
          dtype_name(ref_out.dtype), shape_to_string(ref_out.shape), layout->channels, layout->height,
          layout->width, lo, hi),
      "note"});
  s.blocks.push_back(Chart{svg_grouped_bars(groups, series, title), title});
  s.blocks.push_back(std::move(pictures));
  if (!heatmaps.pictures.empty()) {
    s.blocks.push_back(Subheading{"Where they differ"});
    s.blocks.push_back(std::move(heatmaps));
  }
  return s;
}

}  // namespace

Document probe_document(const probe::ProbeReport& r) {
  Document doc{"parity probe " + r.model.path.filename().string(),
               fmt::format("inputs {}; reference {}; {} sample{}, seed {}; parity {}", probe_inputs_text(r),
                           r.reference, r.samples, r.samples == 1 ? "" : "s", r.seed, r.parity_version),
               {backends_section(r), verdict_section(r)}};
  for (const auto& b : r.backends)
    if (b.is_reference)
      for (const auto& o : b.outputs) doc.sections.push_back(picture_section(r, o));
  return doc;
}

}  // namespace parity::report
