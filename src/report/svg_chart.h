// report/svg_chart.h: the charts of the reports, as inline SVG elements (no script, no external
// assets), drawn by small tested code rather than a plotting library the registries do not carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parity::report {

// Grouped vertical bars (one group per label, one bar per series) as inline SVG, with a legend and a
// zero line; values may be negative. Series colours are fixed by index, so the reference is the
// same colour in every chart of a report.
struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per group
};
std::string svg_grouped_bars(const std::vector<std::string>& groups, const std::vector<BarSeries>& series,
                             std::string_view title);

// Lines over a shared x axis (one point per index; an exact 0 sits on the axis floor, NaN or Inf
// leaves a gap) on a log10 y axis, as inline SVG, with a legend, the x labels of `mark` named under a
// vertical marker line, and hover titles naming each point by `labels`. For errors across a network: max |a -
// e| against the bound.
struct LineSeries {
  std::string name;
  std::vector<double> values;  // one per x
  bool dashed = false;
};
std::string svg_log_lines(const std::vector<std::string>& labels, const std::vector<LineSeries>& series,
                          std::string_view title, std::optional<std::size_t> mark = std::nullopt);

// Points over a linear x axis on a log10 y axis, one series each, with a point colour per point
// (what it says: correct, partly wrong, wrong), shaded x ranges and labelled vertical x markers: the
// size cliff (error vs pixel count, the partly-wrong band and the safe budget).
struct XyPoint {
  double x = 0, y = 0;  // y: 0 sits on the axis floor, +Inf at its ceiling, NaN is left out
  std::string colour;   // #rrggbb
  std::string label;    // hover title
};
struct XRange {
  double from = 0, to = 0;
  std::string label;
};
struct XMarker {
  double x = 0;
  std::string label;
};
std::string svg_log_scatter(const std::vector<XyPoint>& points, std::string_view x_title,
                            std::string_view title, const std::vector<XRange>& ranges = {},
                            const std::vector<XMarker>& markers = {});

}  // namespace parity::report
