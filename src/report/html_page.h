// report/html_page.h: the frame of every HTML report: one self-contained file (styles inline,
// pictures as data: URIs, charts as inline SVG; no script, no network), opened by a person
// without reading JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parity::report {

std::string html_escape(std::string_view text);

// <img> of a PNG as a data: URI, with its size, a caption under it and a CSS class.
std::string html_png(const std::string& png, int width, int height, std::string_view caption,
                     std::string_view css_class = "picture");

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

// The whole document: <title>, a heading, a subtitle line and the body sections in order.
std::string html_document(std::string_view title, std::string_view subtitle,
                          const std::vector<std::string>& sections);

}  // namespace parity::report
