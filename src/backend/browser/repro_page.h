// backend/browser/repro_page.h: a self-contained repro.html for onnxruntime-web bug reports.
//
// Upstream maintainers want "open this page and see the wrong number", not a tool. The page loads
// the same onnxruntime-web release and bundle from jsDelivr, fetches model.onnx from its own
// folder, feeds the inputs embedded in it (raw bytes, base64), runs on the same path, and prints
// every output's max_abs against the embedded expected values with the verdict. Serve the folder
// (python3 -m http.server) and open it in any browser with WebGPU.
#pragma once

#include <string>
#include <vector>

#include "backend/browser/ort_web_dist.h"
#include "parity/tensor.h"

namespace parity::backend::browser {

struct ReproPage {
  WebPathInfo path;
  std::string ort_web_version;  // "1.30.0": the release loaded from the CDN
  std::string title;            // "DequantizeLinear node `dq_bias` diverges on web-webgpu"
  std::vector<NamedTensor> inputs;
  std::vector<NamedTensor> expected;  // the reference outputs
  double atol = 1e-4, rtol = 1e-3;    // the rule the page applies (Parity's allclose)
};

// The HTML text; empty when the tensors are too large to embed sensibly (over 8 MiB) or of a type
// onnxruntime-web's Tensor does not take.
std::string render_repro_page(const ReproPage& page);

}  // namespace parity::backend::browser
