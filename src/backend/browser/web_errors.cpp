#include "backend/browser/web_errors.h"

#include <array>
#include <regex>

#include "backend/ort/ort_guard.h"

namespace parity::backend::browser {
namespace {

// "No kernel for this": ORT's own words, and the limits JSEP kernels declare ("... is not yet
// implemented in the WebGPU AveragePool kernel", "currently only support 2-dimensional conv").
constexpr const char* kNoKernel =
    R"(could not find an implementation|not (yet )?implemented|unsupported (data )?type|)"
    R"(is not (yet )?supported|currently (only|not) support|only \S+ or \S+ are supported)";

struct Rule {
  const char* pattern;  // ECMAScript regex, case-insensitive, searched in the message
  ErrorKind kind;
  const char* hint;
};

// First match wins; order from specific to general.
const std::array<Rule, 10> kRules{{
    {R"(requires f16 but the device does not support it|shader-f16)", ErrorKind::unavailable,
     "the adapter lacks a feature this model needs (shader-f16), so fp16 kernels cannot run; use web-wasm, "
     "an fp32 model, or a GPU whose adapter offers shader-f16"},
    {R"(std::bad_alloc|out of memory|\boom\b|array buffer allocation failed|could not allocate memory|)"
     R"(maximum memory size exceeded|cannot enlarge memory)",
     ErrorKind::oom,
     "the wasm heap is limited to 4 GiB (wasm32); use smaller inputs, or a backend with more memory"},
    {R"(exceeds the max buffer size limit|maxBufferSize|maxStorageBufferBindingSize|)"
     R"(exceeds the max storage buffer)",
     ErrorKind::oom,
     "a tensor is larger than this WebGPU adapter's buffer limits (see the adapter's limits in the report); "
     "use smaller inputs or tile them"},
    {R"(device (was )?lost|device was destroyed|devicelost)", ErrorKind::crashed,
     "the WebGPU device was lost (GPU process crash, driver reset or device.destroy()); results after it "
     "are not trustworthy"},
    {R"(failed to fetch dynamically imported module|importing a module script failed)",
     ErrorKind::unavailable,
     "the onnxruntime-web bundle could not be loaded; check --ort-web-dir / --ort-web-version"},
    {R"(no available backend found|backend not found|webgpu is not supported|navigator\.gpu|)"
     R"(failed to get gpu adapter|no (webgpu )?adapter|webgpu.*not available)",
     ErrorKind::unavailable,
     "onnxruntime-web could not start this execution path here (the message says why); for WebGPU, "
     "Parity starts Chromium with --enable-unsafe-webgpu (SwiftShader without a GPU)"},
    {R"(fallback to CPU EP has been explicitly disabled)", ErrorKind::unavailable,
     "some nodes cannot run on this web EP (ORT would put them on wasm); fallback=on lets them"},
    // A node no provider at all has a kernel for (not even wasm): ORT-web then fails in its
    // memcpy transformer instead of refusing cleanly.
    {R"(Provider type for \S+ node with name '[^']*' is not set)", ErrorKind::unavailable,
     "no execution provider took this node: neither the web EP nor wasm has a kernel for it"},
    {kNoKernel, ErrorKind::unavailable,
     "onnxruntime-web has no kernel for this; try another web backend or opset"},
    {R"(webgpu validation|validation error)", ErrorKind::error,
     "the backend produced invalid GPU work; outputs after it are not trustworthy"},
}};

// "ERROR_CODE: 6, ..." -> "ERROR_CODE: 6 (ORT_RUNTIME_EXCEPTION), ..."; the code, or -1.
int name_ort_code(std::string& message) {
  static const std::regex code(R"(ERROR_CODE: (\d+))");
  std::smatch m;
  if (!std::regex_search(message, m, code)) return -1;
  // onnxruntime-web prints only the number of the same OrtErrorCode native ORT returns.
  const int n = std::stoi(m[1]);
  message.insert(static_cast<std::size_t>(m.position(0) + m.length(0)),
                 " (" + ort::error_code_name(static_cast<OrtErrorCode>(n)) + ")");
  return n;
}

}  // namespace

Error classify_page_failure(std::string_view label, Stage stage, const PageFailure& failure) {
  Error e;
  e.backend = std::string(label);
  e.stage = stage;
  if (failure.numeric) {
    e.kind = ErrorKind::error;
    e.message = "onnxruntime-web threw the bare number " + failure.message +
                ": a C++ exception escaped its wasm module, which exposes no text for it";
    e.hint =
        "rerun with " + std::string(label) +
        ":log=verbose; ORT's own log lines (kept in the report's worker log) usually name the failing node";
    return e;
  }
  e.message = failure.message;
  const int code = name_ort_code(e.message);
  // A kernel that refuses when it runs was claimed at partitioning, so CPU fallback cannot save
  // the model: an error of the EP (as native ORT's "claimed then failed" kernels are), not a
  // missing kernel.
  if (stage == Stage::run && code != ORT_NOT_IMPLEMENTED &&
      std::regex_search(failure.message, std::regex(kNoKernel, std::regex::icase | std::regex::ECMAScript))) {
    e.kind = ErrorKind::error;
    e.hint =
        "the EP took this node and its kernel then refused it at run time, so even with CPU fallback "
        "the model cannot run on this path; a correct EP would decline the node (try another web backend)";
    return e;
  }
  for (const Rule& rule : kRules) {
    if (std::regex_search(failure.message,
                          std::regex(rule.pattern, std::regex::icase | std::regex::ECMAScript))) {
      e.kind = rule.kind;
      e.hint = rule.hint;
      return e;
    }
  }
  if (code == ORT_NOT_IMPLEMENTED) {
    e.kind = ErrorKind::unavailable;
    e.hint = "onnxruntime-web has no kernel for this here; try another web backend or opset";
    return e;
  }
  e.kind = ErrorKind::error;
  e.hint = "the message is onnxruntime-web's own; the ORT log lines in the report's worker log give context";
  return e;
}

}  // namespace parity::backend::browser
