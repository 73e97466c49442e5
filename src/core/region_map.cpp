#include "parity/region_map.h"

#include <algorithm>
#include <cmath>

namespace parity {

std::string_view to_string(RegionExtent e) {
  switch (e) {
    case RegionExtent::none: return "none";
    case RegionExtent::part: return "part";
    case RegionExtent::all: return "all";
  }
  return "none";
}

int RegionMap::wrong_cells() const {
  return static_cast<int>(
      std::count_if(cells.begin(), cells.end(), [](const RegionCell& c) { return c.wrong; }));
}

RegionExtent RegionMap::extent() const {
  const int wrong = wrong_cells();
  if (wrong == 0) return RegionExtent::none;
  return wrong >= kRegionAllWrong * static_cast<double>(cells.size()) ? RegionExtent::all
                                                                      : RegionExtent::part;
}

std::vector<std::string> RegionMap::picture() const {
  std::vector<std::string> rows_text(static_cast<std::size_t>(rows),
                                     std::string(static_cast<std::size_t>(cols), '.'));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (cells[static_cast<std::size_t>(r * cols + c)].wrong)
        rows_text[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] = '#';
  return rows_text;
}

std::string RegionMap::wrong_box() const {
  int r0 = rows, r1 = -1, c0 = cols, c1 = -1;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (cells[static_cast<std::size_t>(r * cols + c)].wrong) {
        r0 = std::min(r0, r), r1 = std::max(r1, r), c0 = std::min(c0, c), c1 = std::max(c1, c);
      }
  if (r1 < 0) return "";
  auto span = [](const char* what, int a, int b) {
    return std::string(what) + " " + std::to_string(a + 1) + (a == b ? "" : "-" + std::to_string(b + 1));
  };
  return span("rows", r0, r1) + ", " + span("cols", c0, c1);
}

std::optional<std::pair<int, int>> spatial_axes(const Shape& shape) {
  if (shape.size() != 4) return std::nullopt;
  const bool nhwc = shape[3] >= 1 && shape[3] <= 4 && shape[1] > 4;
  const std::pair<int, int> axes = nhwc ? std::pair{1, 2} : std::pair{2, 3};
  if (shape[static_cast<std::size_t>(axes.first)] < 2 || shape[static_cast<std::size_t>(axes.second)] < 2)
    return std::nullopt;
  return axes;
}

std::optional<RegionMap> region_map(const Tensor& actual, const Tensor& expected, const Comparison& cmp,
                                    const Tolerance& tol, int grid) {
  if (!dtype_is_float(expected.dtype()) || !dtype_is_float(actual.dtype()) ||
      actual.shape() != expected.shape())
    return std::nullopt;
  const auto axes = spatial_axes(expected.shape());
  if (!axes || grid < 1) return std::nullopt;
  const Shape& shape = expected.shape();
  const int64_t height = shape[static_cast<std::size_t>(axes->first)];
  const int64_t width = shape[static_cast<std::size_t>(axes->second)];
  // Strides of the two spatial axes in the flat (row-major) layout.
  int64_t w_stride = 1;
  for (std::size_t d = static_cast<std::size_t>(axes->second) + 1; d < shape.size(); ++d)
    w_stride *= shape[d];
  const int64_t h_stride = w_stride * width;

  RegionMap map;
  map.height_axis = axes->first;
  map.width_axis = axes->second;
  map.rows = static_cast<int>(std::min<int64_t>(grid, height));
  map.cols = static_cast<int>(std::min<int64_t>(grid, width));
  const std::size_t n_cells = static_cast<std::size_t>(map.rows * map.cols);
  std::vector<int64_t> count(n_cells, 0), over(n_cells, 0), zeros(n_cells, 0), ref_zeros(n_cells, 0);
  std::vector<double> sum(n_cells, 0), ref_sum(n_cells, 0);

  const std::size_t n = static_cast<std::size_t>(expected.numel());
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t h = (static_cast<int64_t>(i) / h_stride) % height;
    const int64_t w = (static_cast<int64_t>(i) / w_stride) % width;
    const std::size_t cell =
        static_cast<std::size_t>((h * map.rows / height) * map.cols + w * map.cols / width);
    const double a = actual.element_as_double(i), e = expected.element_as_double(i);
    ++count[cell];
    zeros[cell] += a == 0;
    ref_zeros[cell] += e == 0;
    if (std::isfinite(a)) sum[cell] += a;
    if (std::isfinite(e)) ref_sum[cell] += e;
    const bool both_nan = std::isnan(a) && std::isnan(e);
    const bool same_inf = std::isinf(a) && std::isinf(e) && (a > 0) == (e > 0);
    if (both_nan || same_inf) continue;
    if (!std::isfinite(a) || !std::isfinite(e) || std::fabs(a - e) > cmp.bound_abs + tol.rtol * std::fabs(e))
      ++over[cell];
  }
  map.cells.resize(n_cells);
  for (std::size_t c = 0; c < n_cells; ++c) {
    RegionCell& cell = map.cells[c];
    const double k = static_cast<double>(std::max<int64_t>(count[c], 1));
    cell.over_bound = static_cast<double>(over[c]) / k;
    cell.zero_fraction = static_cast<double>(zeros[c]) / k;
    cell.ref_zero_fraction = static_cast<double>(ref_zeros[c]) / k;
    cell.mean = sum[c] / k;
    cell.ref_mean = ref_sum[c] / k;
    // One element is never a region (a near-tie flip); a share of a small cell would make it one.
    const bool many_over = over[c] > 1 && cell.over_bound > kRegionWrongElements;
    cell.wrong = many_over || std::fabs(cell.zero_fraction - cell.ref_zero_fraction) > kRegionZeroShift;
  }
  return map;
}

}  // namespace parity
