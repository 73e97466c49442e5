// parity/region_map.h: where in an image-like output the damage is.
//
// Whole-tensor metrics hide a partly wrong output: the seed's super-resolution model had a band of
// sizes where part of the picture was exactly zero while the mean moved by only ~0.02. A region map
// cuts the spatial axes of a 4-D output into a grid and judges every cell on its own (its share of
// elements outside the bound, its zero fraction against the reference's), so a report can say
// "wrong in 24 of 64 regions, rows 5-8" and a size search can tell a partly wrong output from an
// entirely wrong one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parity/metrics.h"
#include "parity/tensor.h"

namespace parity {

// A cell is wrong when more than this share of its elements (and more than one) is outside the bound...
inline constexpr double kRegionWrongElements = 0.01;
// ...or its share of exact zeros differs from the reference's by more than this.
inline constexpr double kRegionZeroShift = 0.05;
// An output is wrong "all over" when at least this share of its cells is wrong.
inline constexpr double kRegionAllWrong = 0.9;

enum class RegionExtent { none, part, all };
std::string_view to_string(RegionExtent e);

struct RegionCell {
  double over_bound = 0;  // share of the cell's elements outside the bound (or NaN where the ref is not)
  double zero_fraction = 0, ref_zero_fraction = 0;
  double mean = 0, ref_mean = 0;
  bool wrong = false;
};

struct RegionMap {
  int rows = 0, cols = 0;  // grid over the spatial axes (height, width)
  int height_axis = 2, width_axis = 3;
  std::vector<RegionCell> cells;  // row-major, rows * cols
  int wrong_cells() const;
  RegionExtent extent() const;
  // One string per grid row, '#' for a wrong cell and '.' for a right one.
  std::vector<std::string> picture() const;
  // "rows 5-8, cols 1-8" : the bounding box of the wrong cells (1-based); "" when none is wrong.
  std::string wrong_box() const;
};

// The spatial axes of an image-like 4-D shape: (2, 3) for NCHW, (1, 2) for NHWC (last dim 1-4 and
// dim 1 larger than 4); nullopt for any other rank or when a spatial dim is below 2.
std::optional<std::pair<int, int>> spatial_axes(const Shape& shape);

// The map of `actual` against `expected` (same float dtype and shape) on a grid of at most
// `grid` x `grid` cells, judging elements by `cmp`'s bound (bound_abs + tol.rtol * |ref|), the
// bound the whole-tensor verdict used. nullopt when the output is not image-like (spatial_axes).
std::optional<RegionMap> region_map(const Tensor& actual, const Tensor& expected, const Comparison& cmp,
                                    const Tolerance& tol, int grid = 8);

}  // namespace parity
