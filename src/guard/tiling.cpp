#include "guard/tiling.h"

#include <algorithm>
#include <cmath>

namespace parity::guard {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

Error tiling_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::run, std::move(message), std::move(hint));
}

// Rows [y0, y1) and columns [x0, x1) of an NCHW float32 tensor.
Tensor crop(const Tensor& t, int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
  const Shape& s = t.shape();
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3], th = y1 - y0, tw = x1 - x0;
  auto out = Tensor::zeros(DType::float32, {n, c, th, tw}).value();
  const auto src = t.view<float>();
  auto dst = out.mutable_view<float>();
  for (int64_t p = 0; p < n * c; ++p)
    for (int64_t y = 0; y < th; ++y)
      std::copy_n(src.begin() + ((p * h + y0 + y) * w + x0), tw, dst.begin() + (p * th + y) * tw);
  return out;
}

// The blend weight of input-space coordinate `v` (a pixel centre) for a tile whose core is
// [lo, hi) along one axis, with ramps of half-width `band` on the sides that are cuts, not edges.
double axis_weight(double v, int64_t lo, int64_t hi, int64_t extent, double band) {
  if (band <= 0) return (v >= static_cast<double>(lo) && v < static_cast<double>(hi)) ? 1.0 : 0.0;
  double w = 1.0;
  if (lo > 0) w = std::min(w, std::clamp((v - (static_cast<double>(lo) - band)) / (2 * band), 0.0, 1.0));
  if (hi < extent) w = std::min(w, std::clamp(((static_cast<double>(hi) + band) - v) / (2 * band), 0.0, 1.0));
  return w;
}

// One output being reassembled: weighted sums and the weight of every pixel.
struct Canvas {
  std::string name;
  int64_t scale_h = 0, scale_w = 0, n = 0, c = 0;
  Tensor sum;                 // float32 NCHW at full size
  std::vector<float> weight;  // H x W
};

Status add_tile(Canvas& cv, const Tile& tile, const TileGrid& g, const Tensor& out) {
  const Shape& s = out.shape();
  const int64_t th = tile.cy1 - tile.cy0, tw = tile.cx1 - tile.cx0;
  if (s.size() != 4 || out.dtype() != DType::float32 || s[2] % th != 0 || s[3] % tw != 0 ||
      s[2] / th != cv.scale_h || s[3] / tw != cv.scale_w || s[0] != cv.n || s[1] != cv.c)
    return tiling_error("output '" + cv.name + "' of a " + std::to_string(th) + "x" + std::to_string(tw) +
                            " tile has shape " + shape_to_string(s) + ", not the image at one integer scale",
                        "only fully convolutional image-to-image models can be tiled");
  const int64_t H = g.height * cv.scale_h, W = g.width * cv.scale_w;
  const int64_t oh = s[2], ow = s[3];
  const double band = g.overlap / 2.0;
  const auto src = out.view<float>();
  auto dst = cv.sum.mutable_view<float>();
  for (int64_t y = 0; y < oh; ++y) {
    const int64_t Y = tile.cy0 * cv.scale_h + y;
    const double wy = axis_weight((static_cast<double>(Y) + 0.5) / static_cast<double>(cv.scale_h), tile.y0,
                                  tile.y1, g.height, band);
    if (wy <= 0) continue;
    for (int64_t x = 0; x < ow; ++x) {
      const int64_t X = tile.cx0 * cv.scale_w + x;
      const double wx = axis_weight((static_cast<double>(X) + 0.5) / static_cast<double>(cv.scale_w), tile.x0,
                                    tile.x1, g.width, band);
      if (wx <= 0) continue;
      const auto wgt = static_cast<float>(wy * wx);
      cv.weight[static_cast<std::size_t>(Y * W + X)] += wgt;
      for (int64_t p = 0; p < cv.n * cv.c; ++p)
        dst[static_cast<std::size_t>((p * H + Y) * W + X)] +=
            wgt * src[static_cast<std::size_t>((p * oh + y) * ow + x)];
    }
  }
  return ok_status();
}

}  // namespace

TileGrid plan_tiles(int64_t height, int64_t width, int64_t budget_pixels, int overlap) {
  TileGrid g;
  g.height = height;
  g.width = width;
  g.overlap = std::max(0, overlap);
  g.budget_pixels = budget_pixels;
  const auto side =
      static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(std::max<int64_t>(1, budget_pixels)))));
  const int64_t core = std::max<int64_t>({side - 2 * g.overlap, 8, g.overlap});
  g.rows = static_cast<int>(ceil_div(height, core));
  g.cols = static_cast<int>(ceil_div(width, core));
  const int64_t core_h = ceil_div(height, g.rows), core_w = ceil_div(width, g.cols);
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      Tile t;
      t.y0 = r * core_h;
      t.y1 = std::min(height, t.y0 + core_h);
      t.x0 = c * core_w;
      t.x1 = std::min(width, t.x0 + core_w);
      t.cy0 = std::max<int64_t>(0, t.y0 - g.overlap);
      t.cy1 = std::min(height, t.y1 + g.overlap);
      t.cx0 = std::max<int64_t>(0, t.x0 - g.overlap);
      t.cx1 = std::min(width, t.x1 + g.overlap);
      if (t.y0 < t.y1 && t.x0 < t.x1) g.tiles.push_back(t);
    }
  return g;
}

Result<std::vector<NamedTensor>> run_tiled(const std::vector<NamedTensor>& inputs,
                                           const std::string& image_input, const TileGrid& grid,
                                           const TileRun& run) {
  std::size_t image_index = inputs.size();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name == image_input) image_index = i;
  if (image_index == inputs.size()) return tiling_error("no input named '" + image_input + "' to tile");
  const Tensor& image = inputs[image_index].tensor;
  if (image.dtype() != DType::float32 || image.shape().size() != 4 || image.shape()[2] != grid.height ||
      image.shape()[3] != grid.width)
    return tiling_error("input '" + image_input + "' is " + shape_to_string(image.shape()) +
                        "; tiling needs an NCHW float32 image of the planned size");
  std::vector<Canvas> canvases;
  std::vector<NamedTensor> tile_inputs = inputs;
  for (const Tile& tile : grid.tiles) {
    tile_inputs[image_index].tensor = crop(image, tile.cy0, tile.cy1, tile.cx0, tile.cx1);
    PARITY_ASSIGN_OR_RETURN(outputs, run(tile_inputs));
    if (canvases.empty()) {  // the first tile fixes every output's scale
      for (const NamedTensor& o : outputs) {
        const Shape& s = o.tensor.shape();
        const int64_t th = tile.cy1 - tile.cy0, tw = tile.cx1 - tile.cx0;
        if (s.size() != 4 || o.tensor.dtype() != DType::float32 || s[2] % th != 0 || s[3] % tw != 0 ||
            s[2] == 0)
          return tiling_error("output '" + o.name + "' is " + shape_to_string(s) + " for a " +
                                  std::to_string(th) + "x" + std::to_string(tw) +
                                  " tile: not an NCHW float32 image at an integer scale",
                              "only fully convolutional image-to-image models can be tiled");
        Canvas cv;
        cv.name = o.name;
        cv.scale_h = s[2] / th;
        cv.scale_w = s[3] / tw;
        cv.n = s[0];
        cv.c = s[1];
        const int64_t H = grid.height * cv.scale_h, W = grid.width * cv.scale_w;
        PARITY_ASSIGN_OR_RETURN(sum, Tensor::zeros(DType::float32, {cv.n, cv.c, H, W}));
        cv.sum = std::move(sum);
        cv.weight.assign(static_cast<std::size_t>(H * W), 0.0f);
        canvases.push_back(std::move(cv));
      }
    }
    if (outputs.size() != canvases.size())
      return tiling_error("a tile returned a different number of outputs");
    for (std::size_t k = 0; k < canvases.size(); ++k)
      PARITY_TRY(add_tile(canvases[k], tile, grid, outputs[k].tensor));
  }
  std::vector<NamedTensor> result;
  for (Canvas& cv : canvases) {
    auto v = cv.sum.mutable_view<float>();
    const std::size_t plane = cv.weight.size();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const float w = cv.weight[i % plane];
      if (w > 0) v[i] /= w;
    }
    result.push_back({cv.name, std::move(cv.sum)});
  }
  return result;
}

}  // namespace parity::guard
