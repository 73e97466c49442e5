// report/tensor_picture.h: output tensors drawn as pictures for the HTML reports: an image-like
// output (NCHW/NHWC with 1-4 channels, or a map such as PP-OCR's [1, 1, H, W] probability map) as
// a PNG, downsampled for display, and the difference of two as an amplified heat map, so an
// all-black channel or a "locally zero" band shows at a glance. Statistics are computed on the
// full data elsewhere (core/metrics); these are only for the eye.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parity/tensor.h"
#include "report/document.h"

namespace parity::report {

// How a shape reads as a picture: batch 0, `channels` planes of height x width.
struct PictureLayout {
  int64_t channels = 1, height = 0, width = 0;
  bool channels_last = false;  // NHWC (or HWC) rather than NCHW
};

// The layout of an image-like shape, or nullopt: rank 4 [N,C,H,W] or [N,H,W,C] with C in 1..4, rank
// 3 [C,H,W] or [H,W,C], rank 2 [H,W]; both spatial sides at least 8 (a [1, 3, 1, 1] is a vector).
std::optional<PictureLayout> picture_layout(const Shape& shape);

// Draws `t` (numeric, image-like) with values mapped linearly from [lo, hi] to 0..255 (clamped),
// RGB from the first three channels, gray otherwise; at most `max_side` pixels on its longer side
// (box-averaged). nullopt when `t` is not image-like.
std::optional<Picture> draw_tensor(const Tensor& t, double lo, double hi, int max_side = 320);

// |a - b| per pixel (the largest over channels), `gain` times amplified, as a black-red-yellow-white
// heat map of the same display size; a and b must have the same image-like shape.
std::optional<Picture> draw_difference(const Tensor& a, const Tensor& b, double gain, int max_side = 320);

// Per-channel means of an image-like tensor (batch 0), over the full data.
std::vector<double> channel_means(const Tensor& t);

}  // namespace parity::report
