#include "core/image.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

// stb is third-party C compiled as C++: keep its warnings out of our -Werror build. STATIC keeps
// its symbols private to this file, so another copy elsewhere (libstb, a test) cannot clash.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO  // files are read by read_file() below so io errors are ours to report
#include <stb/stb_image.h>
#define STB_IMAGE_RESIZE_STATIC
#define STB_IMAGE_RESIZE_IMPLEMENTATION
#include <stb/stb_image_resize.h>
#pragma GCC diagnostic pop

namespace parity {
namespace {

constexpr int64_t kMaxSide = 65536;  // resize targets above this are surely a typo

Error image_error(ErrorKind kind, std::string message, std::string hint = {}) {
  return make_error(kind, Stage::prepare_inputs, std::move(message), std::move(hint));
}

Result<std::string> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return image_error(ErrorKind::io, "image " + path.string() + " does not exist");
  if (std::filesystem::is_directory(path, ec))
    return image_error(ErrorKind::io, "image " + path.string() + " is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return image_error(ErrorKind::io, "cannot open image " + path.string(), "check its permissions");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return image_error(ErrorKind::io, "error reading image " + path.string());
  return bytes;
}

struct StbFree {
  void operator()(void* p) const { stbi_image_free(p); }
};

}  // namespace

Result<Tensor> load_image_nchw(const std::filesystem::path& path, const ImageLoadOptions& options) {
  if (options.channels != 1 && options.channels != 3)
    return image_error(ErrorKind::bad_input,
                       "image channels must be 1 (gray) or 3 (RGB), got " + std::to_string(options.channels));
  if (options.height.has_value() != options.width.has_value())
    return image_error(ErrorKind::bad_input, "image resize needs both height and width");
  if (options.height &&
      (*options.height < 1 || *options.height > kMaxSide || *options.width < 1 || *options.width > kMaxSide))
    return image_error(ErrorKind::bad_input, "image resize target " + std::to_string(*options.height) + "x" +
                                                 std::to_string(*options.width) + " is outside 1..65536");

  PARITY_ASSIGN_OR_RETURN(bytes, read_file(path));
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return image_error(ErrorKind::bad_input, "image " + path.string() + " is larger than 2 GiB");
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int len = static_cast<int>(bytes.size());
  const int c = options.channels;

  // Decode to interleaved HWC floats in [0, 1]; 16-bit PNGs keep their precision.
  int w = 0, h = 0, file_channels = 0;
  std::vector<float> hwc;
  if (stbi_is_16_bit_from_memory(data, len)) {
    std::unique_ptr<stbi_us, StbFree> px(stbi_load_16_from_memory(data, len, &w, &h, &file_channels, c));
    if (!px)
      return image_error(ErrorKind::bad_input,
                         "cannot decode image " + path.string() + ": " + stbi_failure_reason(),
                         "PNG, JPEG, BMP, GIF, TGA, PSD, HDR and PNM are readable");
    hwc.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c));
    for (std::size_t i = 0; i < hwc.size(); ++i) hwc[i] = static_cast<float>(px.get()[i]) / 65535.0f;
  } else {
    std::unique_ptr<stbi_uc, StbFree> px(stbi_load_from_memory(data, len, &w, &h, &file_channels, c));
    if (!px)
      return image_error(ErrorKind::bad_input,
                         "cannot decode image " + path.string() + ": " + stbi_failure_reason(),
                         "PNG, JPEG, BMP, GIF, TGA, PSD, HDR and PNM are readable");
    hwc.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c));
    for (std::size_t i = 0; i < hwc.size(); ++i) hwc[i] = static_cast<float>(px.get()[i]) / 255.0f;
  }

  if (options.height && (*options.height != h || *options.width != w)) {
    const int oh = static_cast<int>(*options.height), ow = static_cast<int>(*options.width);
    std::vector<float> resized(static_cast<std::size_t>(oh) * static_cast<std::size_t>(ow) *
                               static_cast<std::size_t>(c));
    if (!stbir_resize_float_generic(hwc.data(), w, h, 0, resized.data(), ow, oh, 0, c,
                                    STBIR_ALPHA_CHANNEL_NONE, 0, STBIR_EDGE_CLAMP, STBIR_FILTER_TRIANGLE,
                                    STBIR_COLORSPACE_LINEAR, nullptr))
      return image_error(ErrorKind::internal, "stb_image_resize failed resizing " + path.string());
    hwc = std::move(resized);
    w = ow;
    h = oh;
  }

  PARITY_ASSIGN_OR_RETURN(t, Tensor::zeros(DType::float32, {1, c, h, w}));
  auto out = t.mutable_view<float>();
  const std::size_t plane = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  for (std::size_t p = 0; p < plane; ++p)
    for (int ch = 0; ch < c; ++ch)
      // Clamp: the resampler's float sums can stray an ulp outside [0, 1].
      out[static_cast<std::size_t>(ch) * plane + p] =
          std::clamp(hwc[p * static_cast<std::size_t>(c) + static_cast<std::size_t>(ch)], 0.0f, 1.0f);
  return t;
}

}  // namespace parity
