// backend/browser/web_errors.h: turning what onnxruntime-web and the page report into Parity's
// error kinds. onnxruntime-web has no error codes a caller can switch on: failures arrive as
// message text ("failed to call OrtRun(). ERROR_CODE: 6, ERROR_MESSAGE: std::bad_alloc"), as
// WebGPU validation messages, or as a bare number (a C++ exception that escaped the wasm module).
// This is the one place that reads them; tests/fixtures/browser/web_errors.json holds real
// messages seen from Chromium and the expected kind of each.
#pragma once

#include <string>
#include <string_view>

#include "parity/error.h"

namespace parity::backend::browser {

struct PageFailure {
  std::string message;   // the thrown value's message (or the number's text)
  bool numeric = false;  // a bare number was thrown
};

// The Error for a failure at `stage` of backend `label` (e.g. "web-webgpu"). Kinds: oom
// (bad_alloc, wasm heap or GPU buffer limits), unavailable (no adapter, missing feature such as
// shader-f16, no backend in the bundle), crashed (WebGPU device lost), error otherwise. Each
// kind gets a hint saying what to try.
Error classify_page_failure(std::string_view label, Stage stage, const PageFailure& failure);

}  // namespace parity::backend::browser
