// backend/backend.h: the small interface every execution backend implements, and the registry.
//
// A Backend runs one model on one execution path (an ONNX Runtime EP in this process, later a
// browser page) and returns outputs plus what it learned about itself (runtime version, adapter,
// node placement). It is always driven inside an isolated worker process (src/isolate), so a
// backend may crash or hang without taking Parity down; it must still turn every failure it can
// see into an Error naming its stage.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parity/error.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::backend {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Everything needed to set a backend up. Serialised to JSON for the worker (isolate/protocol).
struct BackendSpec {
  std::string label;                    // name in reports: "cpu", "webgpu", "ort129"; unique per run
  std::string ep;                       // short lowercase EP name: "cpu", "webgpu", "cuda", "xnnpack", ...
  std::string ort_lib;                  // path of libonnxruntime.so; empty = the bundled default
  std::string opt_level = "all";        // all | extended | basic | disabled
  bool allow_fallback = true;           // false sets session.disable_cpu_ep_fallback=1
  KeyValues provider_options;           // passed to the EP verbatim
  KeyValues session_config;             // AddSessionConfigEntry pairs
  std::string webgpu_adapter = "auto";  // auto | system | swiftshader | PATH to a Vulkan ICD json
  int intra_op_threads = 0;             // 0 = ORT default (web-wasm: wasm threads)
  bool count_nodes = true;              // profile one run to count nodes per provider
  // Memory cap of this backend's worker (native backends), below the run's --max-memory: models a
  // device with less memory, and is how a sweep finds the input size where a backend runs out of
  // it while the reference runs uncapped. 0 = the run's limit.
  uint64_t max_memory_bytes = 0;
  // Vulkan faults for this backend's worker (native WebGPU), as PARITY_CHAOS_FAULTS reads them:
  // spec key vk-mask=LIMIT=VALUE adds "mask:LIMIT=VALUE", a device that reports less (e.g. a
  // 128 MiB maxStorageBufferRange) while the real driver does the work. Empty = no layer.
  std::string vulkan_faults;
  // Native backends: ORT writes the model as its optimizer left it (SetOptimizedModelFilePath)
  // here, so callers can see what survived constant folding. Key save-optimized=PATH.
  std::string optimized_model_path;
  // Browser backends (web-wasm, web-jsep, web-webgpu) only:
  std::string ort_web;                    // onnxruntime-web version ("1.22.0") or folder; empty = default
  std::string browser;                    // Chromium executable; empty = /usr/lib/chromium/chromium
  std::vector<std::string> browser_args;  // extra Chromium flags (e.g. --use-vulkan on a GPU machine)
  std::string log_level;       // ORT log level in the page: verbose|info|warning|error; empty = warning
  bool check_features = true;  // refuse fp16 models on adapters without shader-f16 up front
};

struct RunRequest {
  std::string model_path;
  std::vector<NamedTensor> inputs;
  std::vector<std::string> output_names;  // empty = all graph outputs, in graph order
  int warmup_runs = 0;                    // extra runs before the measured one
  // Start from nothing a previous run left: browser backends load their page again even when it
  // holds the bundle (a re-check must not inherit page state). Native runs are fresh anyway: each
  // isolated run is its own worker process.
  bool fresh = false;
  // Further input sets run on the same session after `inputs` (probe's --samples N: one session
  // creation instead of N, as an application runs; browser backends too, on one page session);
  // their outputs come back in RunResult::more_outputs, in order.
  std::vector<std::vector<NamedTensor>> more_inputs = {};
};

struct RunResult {
  std::vector<NamedTensor> outputs;
  std::vector<std::vector<NamedTensor>> more_outputs;  // one per RunRequest::more_inputs entry
  std::string runtime_version;                         // "1.30.0"
  std::string adapter;            // e.g. "SwiftShader Device (Subzero) [vulkan, cpu]"; empty for cpu
  int64_t nodes_on_backend = -1;  // kernels the named EP ran in the profiled run; -1 unknown
  int64_t nodes_on_cpu = -1;      // kernels that fell back to the CPU EP; -1 unknown
  // (node, op type) of each of those, when the profile names them (native EPs other than cpu).
  KeyValues cpu_nodes;
  double create_ms = 0;  // session creation wall time
  double run_ms = 0;     // measured run wall time
  // One-time setup this run paid and later runs reuse: starting a browser, loading a bundle into
  // its page (web backends; 0 when the page was reused). Part of the run's wall time, reported
  // apart so a first run is not mistaken for a slow one.
  double setup_ms = 0;
  // CPU time the backend's processes used from the end of setup to the end of the run (browser
  // backends: Chromium's whole process group, all cores summed); -1 when not measured. Tells a
  // slow run that computes (shader compilation) from one that waits (a stall).
  double run_cpu_ms = -1;
  std::vector<std::string> notes;  // informational lines for the report ("adapter chosen by auto")
  // Facts about the execution environment, for the JSON report: "adapter.features",
  // "adapter.limits.maxBufferSize", "ort_web.bundle", "wasm.threads", "placement", ...
  KeyValues properties;
};

// Called on entry to each stage, so a worker can tell its parent where it was if it dies.
using StageObserver = std::function<void(Stage)>;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const BackendSpec& spec() const = 0;
  // Runs the request from scratch (library, env, session, run), then each of request.more_inputs
  // on the same session. Never throws.
  virtual Result<RunResult> run(const RunRequest& request, const StageObserver& observe) = 0;
};

// True for the browser backends ("web-wasm", "web-jsep", "web-webgpu"), which run in headless
// Chromium rather than in this process.
bool is_web_backend(std::string_view ep);

// True where ORT's CPU kernels are the EP under test: "cpu" natively and "web-wasm" (the same
// kernels compiled to wasm). For these, CPU fallback does not apply and a graph folded to zero
// kernels still ran CPU code (constant folding).
bool runs_on_cpu_kernels(std::string_view ep);

// The reduced arithmetic `spec` computes a float32 model in by default, "" for none: "tf32" for
// the CUDA EP, whose use_tf32 option defaults to 1 (matmuls and convolutions round their inputs to
// 10 mantissa bits, as fp16 does), unless its options say use_tf32=0. Measured on an H100: PP-OCRv4
// det, Silero VAD, ResNet-50, Swin-T and ViT-B/16 all leave float32's rule at cosine >= 0.999999.
std::string_view reduced_arithmetic(const BackendSpec& spec);

using BackendFactory = std::function<Result<std::unique_ptr<Backend>>(const BackendSpec&)>;

// Registry keyed by EP family: "web" claims web-wasm/web-jsep/web-webgpu (onnxruntime-web in
// headless Chromium; this form launches a private browser per backend, see browser_pool.h for
// the shared one), "ort" every other name, so an EP the library lacks (or a misspelt one) fails
// at Stage::append_provider, whose hint lists the EPs that library has. Empty ep: bad_input.
Result<std::unique_ptr<Backend>> create_backend(const BackendSpec& spec);

// Short EP names Parity knows how to attach ("cpu", "webgpu", "cuda", ..., "web-wasm", ...).
// Whether the loaded library really has one is only known at run time (ort::list_available_eps).
std::vector<std::string> known_ep_names();
bool is_known_ep(std::string_view ep);

}  // namespace parity::backend
