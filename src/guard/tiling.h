// guard/tiling.h: tiled execution of an image-to-image model.
//
// A big input is split into overlapping tiles that fit a pixel budget, each tile runs on its own,
// and the outputs are blended back at the model's scale: within the overlap, two neighbouring
// tiles' outputs are mixed with weights that ramp linearly and sum to one, over a band of half the
// overlap, so each output pixel comes from tile pixels at least overlap/2 away from a tile's cut
// edge. A fully convolutional model whose receptive field radius is at most overlap/2 therefore
// gives the same numbers tiled as whole (the guard's tests check this against the reference).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::guard {

struct Tile {
  int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;      // the core: the pixels this tile is responsible for
  int64_t cy0 = 0, cy1 = 0, cx0 = 0, cx1 = 0;  // the core plus context, clamped to the image
};

struct TileGrid {
  int64_t height = 0, width = 0;
  int overlap = 0;
  int rows = 0, cols = 0;
  std::vector<Tile> tiles;  // row-major
  int64_t budget_pixels = 0;
};

// Splits a height x width image into tiles whose context rectangle holds at most `budget_pixels`
// pixels where it can (a core is never smaller than 8 pixels, or than the overlap).
TileGrid plan_tiles(int64_t height, int64_t width, int64_t budget_pixels, int overlap);

using TileRun = std::function<Result<std::vector<NamedTensor>>(const std::vector<NamedTensor>& inputs)>;

// Runs every tile of `grid` through `run` (the other inputs are passed whole) and reassembles each
// output. `image_input` names the NCHW float32 input that is tiled. Every output must be NCHW
// float32 with spatial dims an integer multiple of its tile's (the same multiple for every tile);
// otherwise bad_input, since such a model cannot be tiled. The first error of a tile is returned.
Result<std::vector<NamedTensor>> run_tiled(const std::vector<NamedTensor>& inputs,
                                           const std::string& image_input, const TileGrid& grid,
                                           const TileRun& run);

}  // namespace parity::guard
