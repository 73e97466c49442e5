// upscale: a whole application of the guard runtime (docs/guard.md). Reads a PNG, runs the x2
// upscaler its capability manifest describes on the backend the manifest says is safe here (with
// preflight, output checks, tiles and fallback), and writes the result, printing every decision.
//
//   upscale CAPS.toml IN.png OUT.png [--force BACKEND] [--isolated]
//
// examples/upscale/run.sh makes the manifest with `parity sweep` and `parity manifest` first.
#include <parity/guard.h>
#include <parity/manifest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace {

int fail(const parity::Error& e) {
  std::fprintf(stderr, "upscale: %s\n", e.describe().c_str());
  return 1;
}

// An RGB image as a [1, 3, H, W] float tensor in [0, 1].
parity::Tensor to_tensor(const unsigned char* rgb, int w, int h) {
  std::vector<float> v(static_cast<std::size_t>(3) * w * h);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < w * h; ++i) v[static_cast<std::size_t>(c) * w * h + i] = rgb[3 * i + c] / 255.0f;
  return parity::Tensor::from_floats({1, 3, h, w}, v);
}

std::vector<unsigned char> to_rgb(const parity::Tensor& t) {
  const auto h = t.shape()[2], w = t.shape()[3];
  const auto v = t.view<float>();
  std::vector<unsigned char> rgb(static_cast<std::size_t>(3 * h * w));
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < h * w; ++i)
      rgb[static_cast<std::size_t>(3 * i + c)] = static_cast<unsigned char>(
          std::clamp(v[static_cast<std::size_t>(c * h * w + i)], 0.0f, 1.0f) * 255.0f + 0.5f);
  return rgb;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: upscale CAPS.toml IN.png OUT.png [--force BACKEND] [--isolated]\n");
    return 2;
  }
  parity::GuardOptions options;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--force") == 0 && i + 1 < argc) options.force = argv[++i];
    if (std::strcmp(argv[i], "--isolated") == 0) options.isolated = true;
  }
  options.on_event = [](const parity::GuardEvent& e) {
    std::fprintf(stderr, "guard: %-17s %-10s %s\n", std::string(parity::to_string(e.kind)).c_str(),
                 e.backend.c_str(), e.message.c_str());
  };

  auto manifest = parity::Manifest::load(argv[1]);
  if (!manifest) return fail(manifest.error());
  const std::filesystem::path dir = std::filesystem::path(argv[1]).parent_path();
  auto session = parity::GuardedSession::open(dir / manifest->model, *manifest, options);
  if (!session) return fail(session.error());

  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(argv[2], &w, &h, &channels, 3);
  if (!pixels) {
    std::fprintf(stderr, "upscale: cannot read %s: %s\n", argv[2], stbi_failure_reason());
    return 2;
  }
  parity::Tensor image = to_tensor(pixels, w, h);
  stbi_image_free(pixels);

  auto out = (*session)->run({{"x", std::move(image)}});
  if (!out) return fail(out.error());
  const parity::Tensor& y = out->outputs.at(0).tensor;
  const auto rgb = to_rgb(y);
  if (!stbi_write_png(argv[3], static_cast<int>(y.shape()[3]), static_cast<int>(y.shape()[2]), 3, rgb.data(),
                      static_cast<int>(y.shape()[3]) * 3)) {
    std::fprintf(stderr, "upscale: cannot write %s\n", argv[3]);
    return 1;
  }
  std::string checks;
  for (const auto& c : out->checks) checks += " " + c.check + (c.passed ? "=ok" : "=FAILED");
  std::printf("%s: %dx%d -> %lldx%lld on %s, %d tile(s), %.0f ms (checks %.2f ms:%s)\n", argv[3], w, h,
              static_cast<long long>(y.shape()[3]), static_cast<long long>(y.shape()[2]),
              out->backend.c_str(), out->tiles, out->wall_ms, out->checks_ms, checks.c_str());
  return 0;
}
