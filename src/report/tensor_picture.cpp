#include "report/tensor_picture.h"

#include <algorithm>
#include <cmath>

// stb's implementation is compiled here, from /usr/include (a system header: its warnings stay out
// of -Werror); STATIC keeps its symbols private to this file.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>

namespace parity::report {
namespace {

constexpr int64_t kMinSide = 8;

// Reads batch 0 of an image-like tensor as planes: value(c, y, x).
class Planes {
 public:
  Planes(const Tensor& t, const PictureLayout& l) : values_(t.to_doubles()), l_(l) {}
  double at(int64_t c, int64_t y, int64_t x) const {
    const std::size_t i = l_.channels_last ? static_cast<std::size_t>((y * l_.width + x) * l_.channels + c)
                                           : static_cast<std::size_t>((c * l_.height + y) * l_.width + x);
    return values_[i];
  }
  const PictureLayout& layout() const { return l_; }

 private:
  std::vector<double> values_;
  PictureLayout l_;
};

// The display size: the longer side at most `max_side`, the aspect kept.
std::pair<int, int> display_size(const PictureLayout& l, int max_side) {
  const double f =
      std::min(1.0, static_cast<double>(max_side) / static_cast<double>(std::max(l.height, l.width)));
  return {std::max(1, static_cast<int>(std::lround(static_cast<double>(l.width) * f))),
          std::max(1, static_cast<int>(std::lround(static_cast<double>(l.height) * f)))};
}

// Averages `value(y, x)` over the source box of display pixel (dx, dy); NaN boxes stay NaN.
template <class Value>
double box_mean(const PictureLayout& l, int w, int h, int dx, int dy, Value value) {
  const int64_t y0 = dy * l.height / h, y1 = std::max(y0 + 1, (dy + 1) * l.height / h);
  const int64_t x0 = dx * l.width / w, x1 = std::max(x0 + 1, (dx + 1) * l.width / w);
  double sum = 0;
  int64_t n = 0;
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t x = x0; x < x1; ++x) {
      sum += value(y, x);
      ++n;
    }
  return sum / static_cast<double>(n);
}

std::string encode_png(const std::vector<unsigned char>& rgb, int w, int h) {
  std::string png;
  stbi_write_png_to_func(
      [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                                   static_cast<std::size_t>(size));
      },
      &png, w, h, 3, rgb.data(), w * 3);
  return png;
}

unsigned char to_byte(double v) {
  if (std::isnan(v)) return 0;
  return static_cast<unsigned char>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

}  // namespace

std::optional<PictureLayout> picture_layout(const Shape& s) {
  PictureLayout l;
  auto small = [](int64_t c) { return c >= 1 && c <= 4; };
  if (s.size() == 4 && s[0] >= 1 && small(s[1]))
    l = {s[1], s[2], s[3], false};
  else if (s.size() == 4 && s[0] >= 1 && small(s[3]))
    l = {s[3], s[1], s[2], true};
  else if (s.size() == 3 && small(s[0]))
    l = {s[0], s[1], s[2], false};
  else if (s.size() == 3 && small(s[2]))
    l = {s[2], s[0], s[1], true};
  else if (s.size() == 2)
    l = {1, s[0], s[1], false};
  else
    return std::nullopt;
  if (l.height < kMinSide || l.width < kMinSide) return std::nullopt;
  return l;
}

std::optional<Picture> draw_tensor(const Tensor& t, double lo, double hi, int max_side) {
  const auto l = picture_layout(t.shape());
  if (!l || !dtype_is_numeric(t.dtype())) return std::nullopt;
  const Planes p(t, *l);
  const auto [w, h] = display_size(*l, max_side);
  const double span = hi > lo ? hi - lo : 1.0;
  std::vector<unsigned char> rgb(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  const int colours = l->channels >= 3 ? 3 : 1;  // gray: one mean, written to all three
  for (int dy = 0; dy < h; ++dy)
    for (int dx = 0; dx < w; ++dx) {
      unsigned char* px =
          &rgb[(static_cast<std::size_t>(dy) * static_cast<std::size_t>(w) + static_cast<std::size_t>(dx)) *
               3];
      for (int c = 0; c < colours; ++c) {
        const double v = box_mean(*l, w, h, dx, dy, [&](int64_t y, int64_t x) { return p.at(c, y, x); });
        px[c] = to_byte((v - lo) / span);
      }
      if (colours == 1) px[1] = px[2] = px[0];
    }
  return Picture(encode_png(rgb, w, h), w, h);
}

std::optional<Picture> draw_difference(const Tensor& a, const Tensor& b, double gain, int max_side) {
  const auto l = picture_layout(a.shape());
  if (!l || a.shape() != b.shape() || !dtype_is_numeric(a.dtype()) || !dtype_is_numeric(b.dtype()))
    return std::nullopt;
  const Planes pa(a, *l), pb(b, *l);
  const auto [w, h] = display_size(*l, max_side);
  std::vector<unsigned char> rgb(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  for (int dy = 0; dy < h; ++dy)
    for (int dx = 0; dx < w; ++dx) {
      const double d = box_mean(*l, w, h, dx, dy, [&](int64_t y, int64_t x) {
        double worst = 0;
        for (int64_t c = 0; c < l->channels; ++c) {
          const double diff = std::abs(pa.at(c, y, x) - pb.at(c, y, x));
          worst = std::isnan(diff) ? 1e300 : std::max(worst, diff);
        }
        return worst;
      });
      // Black -> red -> yellow -> white as the amplified difference goes 0 -> 1.
      const double v = std::clamp(d * gain, 0.0, 1.0);
      unsigned char* px =
          &rgb[(static_cast<std::size_t>(dy) * static_cast<std::size_t>(w) + static_cast<std::size_t>(dx)) *
               3];
      px[0] = to_byte(v * 3);
      px[1] = to_byte(v * 3 - 1);
      px[2] = to_byte(v * 3 - 2);
    }
  return Picture(encode_png(rgb, w, h), w, h);
}

std::vector<double> channel_means(const Tensor& t) {
  const auto l = picture_layout(t.shape());
  if (!l || !dtype_is_numeric(t.dtype())) return {};
  const Planes p(t, *l);
  std::vector<double> means(static_cast<std::size_t>(l->channels), 0.0);
  for (int64_t c = 0; c < l->channels; ++c) {
    double sum = 0;
    for (int64_t y = 0; y < l->height; ++y)
      for (int64_t x = 0; x < l->width; ++x) sum += p.at(c, y, x);
    means[static_cast<std::size_t>(c)] = sum / static_cast<double>(l->height * l->width);
  }
  return means;
}

}  // namespace parity::report
