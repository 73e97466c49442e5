#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/document.h"

namespace parity::report {
namespace {

// Colour-blind-safe (Okabe-Ito), reference first.
constexpr const char* kSeriesColours[] = {"#555555", "#E69F00", "#56B4E9", "#009E73",
                                          "#D55E00", "#0072B2", "#CC79A7", "#F0E442"};

// The opening of a chart: the <svg> element with its hover title and the title written at its top.
std::string svg_open(int width, int height, std::string_view title) {
  return fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\"><title>{2}</title>"
      "<text x=\"0\" y=\"14\" font-size=\"13\" font-weight=\"600\">{2}</text>",
      width, height, html_escape(title));
}

// Labelled horizontal lines at each power of ten from 10^lo to 10^hi, from x `left` to `right`.
template <class YOf>
std::string log_gridlines(double lo, double hi, int left, int right, const YOf& y_of) {
  std::string svg;
  for (double e = lo; e <= hi; e += 1)
    svg += fmt::format(
        "<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">1e{:.0f}</text>"
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>",
        left - 6, y_of(std::pow(10.0, e)) + 4, e, left, right, y_of(std::pow(10.0, e)),
        y_of(std::pow(10.0, e)));
  return svg;
}

}  // namespace

std::string svg_grouped_bars(const std::vector<std::string>& groups, const std::vector<BarSeries>& series,
                             std::string_view title) {
  constexpr int kBar = 18, kGap = 30, kPlotH = 160, kTop = 24, kLeft = 56, kLegend = 18, kMinWidth = 400;
  double lo = 0, hi = 0;
  for (const BarSeries& s : series)
    for (double v : s.values)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (hi - lo <= 0) hi = lo + 1;
  const int group_w = static_cast<int>(series.size()) * kBar + kGap;
  const int width = kLeft + static_cast<int>(groups.size()) * group_w + 8;
  const int legend_h = kLegend * static_cast<int>(series.size());
  const int height = kTop + kPlotH + 34 + legend_h;
  auto y_of = [&](double v) { return kTop + (hi - v) / (hi - lo) * kPlotH; };
  std::string svg = svg_open(std::max(width, kMinWidth), height, title);
  for (double tick : {lo, (lo + hi) / 2, hi})
    svg += fmt::format(
        "<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{:.3g}</text>"
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>",
        kLeft - 6, y_of(tick) + 4, tick, kLeft, width, y_of(tick), y_of(tick));
  svg += fmt::format("<line class=\"zero\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\"/>",
                     kLeft, width, y_of(0), y_of(0));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const int x0 = kLeft + static_cast<int>(g) * group_w + kGap / 2;
    for (std::size_t s = 0; s < series.size(); ++s) {
      const double v = g < series[s].values.size() ? series[s].values[g] : std::nan("");
      if (!std::isfinite(v)) continue;
      const double top = std::min(y_of(v), y_of(0)), h = std::abs(y_of(v) - y_of(0));
      svg += fmt::format(
          "<rect class=\"bar\" x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{} {}: {:.6g}</title></rect>",
          x0 + static_cast<int>(s) * kBar, top, kBar - 2, std::max(h, 0.5),
          kSeriesColours[s % std::size(kSeriesColours)], html_escape(series[s].name), html_escape(groups[g]),
          v);
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
                       x0 + static_cast<int>(series.size()) * kBar / 2, kTop + kPlotH + 16,
                       html_escape(groups[g]));
  }
  for (std::size_t s = 0; s < series.size(); ++s) {
    const int y = kTop + kPlotH + 28 + static_cast<int>(s) * kLegend;
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text>",
        kLeft, y, kSeriesColours[s % std::size(kSeriesColours)], kLeft + 18, y + 11,
        html_escape(series[s].name));
  }
  return svg + "</svg>";
}

std::string svg_log_lines(const std::vector<std::string>& labels, const std::vector<LineSeries>& series,
                          std::string_view title, std::optional<std::size_t> mark) {
  constexpr int kPlotW = 900, kPlotH = 220, kTop = 24, kLeft = 64, kLegend = 18;
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (const LineSeries& s : series)
    for (double v : s.values)
      if (std::isfinite(v) && v > 0) lo = std::min(lo, std::log10(v)), hi = std::max(hi, std::log10(v));
  if (!(hi >= lo)) lo = -1, hi = 0;
  lo = std::floor(lo), hi = std::max(std::ceil(hi), lo + 1);
  const std::size_t n = labels.size();
  auto x_of = [&](std::size_t i) {
    return kLeft + (n <= 1 ? 0.0 : static_cast<double>(i) * kPlotW / static_cast<double>(n - 1));
  };
  auto y_of = [&](double v) { return kTop + (hi - std::log10(v)) / (hi - lo) * kPlotH; };
  const int width = kLeft + kPlotW + 16,
            height = kTop + kPlotH + 40 + kLegend * static_cast<int>(series.size());
  std::string svg = svg_open(width, height, title);
  svg += log_gridlines(lo, hi, kLeft, kLeft + kPlotW, y_of);
  if (mark && *mark < n)
    svg += fmt::format(
        "<line class=\"marker\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#D55E00\" "
        "stroke-width=\"2\"/><text x=\"{0:.1f}\" y=\"{3}\" font-size=\"11\" text-anchor=\"middle\" "
        "fill=\"#D55E00\">{4}</text>",
        x_of(*mark), kTop, kTop + kPlotH, kTop + kPlotH + 14, html_escape(labels[*mark]));
  for (std::size_t s = 0; s < series.size(); ++s) {
    const char* colour = kSeriesColours[(s + 1) % std::size(kSeriesColours)];
    std::string d, dots;
    bool pen_down = false;
    for (std::size_t i = 0; i < n && i < series[s].values.size(); ++i) {
      // An exact zero sits on the floor of the axis (log scale has no 0); NaN and Inf leave a gap.
      const double v = series[s].values[i] == 0 ? std::pow(10.0, lo) : series[s].values[i];
      if (!std::isfinite(v) || v <= 0) {
        pen_down = false;
        continue;
      }
      d += fmt::format("{}{:.1f},{:.1f} ", pen_down ? "L" : "M", x_of(i), y_of(v));
      pen_down = true;
      if (!series[s].dashed)
        dots += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}: {:.4g}</title></circle>",
            x_of(i), y_of(v), colour, html_escape(labels[i]), v);
    }
    svg += fmt::format("<path class=\"line\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{}/>",
                       d, colour, series[s].dashed ? " stroke-dasharray=\"5 4\"" : "");
    svg += dots;
    const int y = kTop + kPlotH + 26 + static_cast<int>(s) * kLegend;
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
        "<text x=\"{5}\" y=\"{6}\" font-size=\"12\">{7}</text>",
        kLeft, kLeft + 18, y + 6, colour, series[s].dashed ? " stroke-dasharray=\"5 4\"" : "", kLeft + 24,
        y + 10, html_escape(series[s].name));
  }
  return svg + "</svg>";
}

std::string svg_log_scatter(const std::vector<XyPoint>& points, std::string_view x_title,
                            std::string_view title, const std::vector<XRange>& ranges,
                            const std::vector<XMarker>& markers) {
  constexpr int kPlotW = 720, kPlotH = 220, kTop = 24, kLeft = 64, kBottom = 44;
  double x_hi = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
  for (const XyPoint& p : points) {
    x_hi = std::max(x_hi, p.x);
    if (std::isfinite(p.y) && p.y > 0) lo = std::min(lo, std::log10(p.y)), hi = std::max(hi, std::log10(p.y));
  }
  for (const XRange& r : ranges) x_hi = std::max(x_hi, r.to);
  for (const XMarker& m : markers) x_hi = std::max(x_hi, m.x);
  if (!(x_hi > 0)) x_hi = 1;
  x_hi *= 1.05;
  if (!(hi >= lo)) lo = -1, hi = 0;
  lo = std::floor(lo), hi = std::max(std::ceil(hi), lo + 1);
  auto x_of = [&](double x) { return kLeft + x / x_hi * kPlotW; };
  auto y_of = [&](double y) { return kTop + (hi - std::log10(y)) / (hi - lo) * kPlotH; };
  const int width = kLeft + kPlotW + 24, height = kTop + kPlotH + kBottom;
  std::string svg = svg_open(width, height, title);
  for (const XRange& r : ranges)
    svg += fmt::format(
        "<rect class=\"range\" x=\"{0:.1f}\" y=\"{1}\" width=\"{2:.1f}\" height=\"{3}\" fill=\"#F0E442\" "
        "fill-opacity=\"0.35\"><title>{4}</title></rect><text x=\"{0:.1f}\" y=\"{5}\" "
        "font-size=\"11\">{4}</text>",
        x_of(r.from), kTop, std::max(2.0, x_of(r.to) - x_of(r.from)), kPlotH, html_escape(r.label),
        kTop + 12);
  svg += log_gridlines(lo, hi, kLeft, kLeft + kPlotW, y_of);
  // x ticks at round numbers: 1, 2 or 5 times a power of ten, about five of them.
  const double raw = x_hi / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? mag : raw / mag < 5 ? 2 * mag : 5 * mag;
  for (double x = 0; x <= x_hi; x += step)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{:.4g}</text>",
                       x_of(x), kTop + kPlotH + 14, x);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
                     kLeft + kPlotW / 2, kTop + kPlotH + 32, html_escape(x_title));
  for (const XMarker& m : markers)
    svg += fmt::format(
        "<line class=\"marker\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#0072B2\" "
        "stroke-width=\"2\" stroke-dasharray=\"6 3\"/><text x=\"{3:.1f}\" y=\"{4}\" font-size=\"11\" "
        "fill=\"#0072B2\">{5}</text>",
        x_of(m.x), kTop, kTop + kPlotH, x_of(m.x) + 4, kTop + kPlotH - 6, html_escape(m.label));
  // An exact 0 sits on the floor (log scale has no 0), +Inf (no value: the size failed to run) at
  // the ceiling.
  auto plot_y = [&](double y) {
    return std::isinf(y) ? static_cast<double>(kTop) : y_of(y > 0 ? y : std::pow(10.0, lo));
  };
  std::vector<const XyPoint*> sorted;
  for (const XyPoint& p : points)
    if (!std::isnan(p.y) && p.y >= 0) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->x < b->x; });
  std::string d;
  for (const XyPoint* p : sorted)
    d += fmt::format("{}{:.1f},{:.1f} ", d.empty() ? "M" : "L", x_of(p->x), plot_y(p->y));
  svg += "<path class=\"line\" d=\"" + d + "\" fill=\"none\" stroke=\"#999\" stroke-width=\"1\"/>";
  for (const XyPoint* p : sorted)
    svg += fmt::format(
        "<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{}</title></circle>",
        x_of(p->x), plot_y(p->y), p->colour.empty() ? "#555555" : p->colour, html_escape(p->label));
  return svg + "</svg>";
}

}  // namespace parity::report
