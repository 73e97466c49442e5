// core/image.h: PNG/JPEG (anything stb_image reads) to an NCHW float32 tensor in [0, 1].
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "parity/result.h"
#include "parity/tensor.h"

namespace parity {

struct ImageLoadOptions {
  int channels = 3;               // 1 (gray) or 3 (RGB); alpha is dropped
  std::optional<int64_t> height;  // resize to this size when set (bilinear)
  std::optional<int64_t> width;
};

// Returns float32 [1, C, H, W], values in [0, 1] (8-bit samples / 255, 16-bit PNG samples / 65535).
// Gray is stb_image's luma (0.299 R + 0.587 G + 0.114 B, in fixed point); alpha is discarded,
// not composited. height and width must be set together (1..65536); the resize is stb's triangle
// filter in linear space with clamped edges: bilinear when upscaling, area-weighted (antialiased,
// like PIL's BILINEAR) when downscaling. Errors: io for a missing or unreadable file, bad_input
// for undecodable data or bad options, both at Stage::prepare_inputs.
Result<Tensor> load_image_nchw(const std::filesystem::path& path, const ImageLoadOptions& options);

}  // namespace parity
