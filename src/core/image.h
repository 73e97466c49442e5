// core/image.h: PNG/JPEG (anything stb_image reads) to an NCHW float32 tensor in [0, 1].
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "parity/result.h"
#include "parity/tensor.h"

namespace parity {

struct ImageLoadOptions {
  int channels = 3;                    // 1 (gray) or 3 (RGB); alpha is dropped
  std::optional<int64_t> height;       // resize to this size when set (bilinear)
  std::optional<int64_t> width;
};

// Returns float32 [1, C, H, W], values in [0, 1].
Result<Tensor> load_image_nchw(const std::filesystem::path& path, const ImageLoadOptions& options);

}  // namespace parity
