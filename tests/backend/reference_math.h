// tests/backend/reference_math.h: the test models' outputs computed in plain C++ from their
// initializers, as the independent reference for every backend test.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "backend_test_util.h"
#include "onnx_wire.h"
#include "parity/dtype.h"

namespace parity::backend::testing {

// matmul_add_relu.onnx: y = relu(x[batch,16] @ w[16,8] + b[8]).
inline std::vector<float> expected_matmul_add_relu(const std::vector<float>& x, int batch) {
  const auto init = read_initializers(model_path("matmul_add_relu.onnx"));
  const auto w = init.at("w").floats();
  const auto b = init.at("b").floats();
  std::vector<float> y(static_cast<std::size_t>(batch) * 8);
  for (int i = 0; i < batch; ++i)
    for (int j = 0; j < 8; ++j) {
      double acc = b[j];
      for (int k = 0; k < 16; ++k) acc += static_cast<double>(x[i * 16 + k]) * w[k * 8 + j];
      y[i * 8 + j] = static_cast<float>(std::max(0.0, acc));
    }
  return y;
}

// conv_image.onnx: y = sigmoid(conv3x3(x[1,3,h,w], w[3,3,3,3], pad 1)).
inline std::vector<float> expected_conv_image(const std::vector<float>& x, int h, int w) {
  const auto kernel = read_initializers(model_path("conv_image.onnx")).at("w").floats();
  std::vector<float> y(static_cast<std::size_t>(3 * h * w));
  for (int oc = 0; oc < 3; ++oc)
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c) {
        double acc = 0;
        for (int ic = 0; ic < 3; ++ic)
          for (int kr = 0; kr < 3; ++kr)
            for (int kc = 0; kc < 3; ++kc) {
              const int rr = r + kr - 1, cc = c + kc - 1;
              if (rr < 0 || rr >= h || cc < 0 || cc >= w) continue;
              acc +=
                  static_cast<double>(x[(ic * h + rr) * w + cc]) * kernel[((oc * 3 + ic) * 3 + kr) * 3 + kc];
            }
        y[(oc * h + r) * w + c] = static_cast<float>(1.0 / (1.0 + std::exp(-acc)));
      }
  return y;
}

// classifier.onnx: probs = softmax(x[batch,32] @ w[32,10]).
inline std::vector<float> expected_classifier(const std::vector<float>& x, int batch) {
  const auto w = read_initializers(model_path("classifier.onnx")).at("w").floats();
  std::vector<float> y(static_cast<std::size_t>(batch) * 10);
  for (int i = 0; i < batch; ++i) {
    double logits[10];
    double top = -1e300;
    for (int j = 0; j < 10; ++j) {
      logits[j] = 0;
      for (int k = 0; k < 32; ++k) logits[j] += static_cast<double>(x[i * 32 + k]) * w[k * 10 + j];
      top = std::max(top, logits[j]);
    }
    double sum = 0;
    for (double& l : logits) sum += (l = std::exp(l - top));
    for (int j = 0; j < 10; ++j) y[i * 10 + j] = static_cast<float>(logits[j] / sum);
  }
  return y;
}

// mixed_types.onnx: y = float16(emb[ids]) * mask (float16), idx = argmax(emb[ids], axis -1).
struct MixedExpected {
  std::vector<float> y;  // widened from float16
  std::vector<int64_t> idx;
};
inline MixedExpected expected_mixed_types(const std::vector<int64_t>& ids,
                                          const std::vector<uint16_t>& mask) {
  const auto emb = read_initializers(model_path("mixed_types.onnx")).at("emb").floats();
  MixedExpected out;
  for (std::size_t s = 0; s < ids.size(); ++s) {
    const float* row = &emb[static_cast<std::size_t>(ids[s]) * 4];
    int64_t best = 0;
    for (int j = 0; j < 4; ++j) {
      const float e16 = half_to_float(float_to_half(row[j]));
      const float product = e16 * half_to_float(mask[s * 4 + j]);
      out.y.push_back(half_to_float(float_to_half(product)));
      if (row[j] > row[best]) best = j;
    }
    out.idx.push_back(best);
  }
  return out;
}

}  // namespace parity::backend::testing
