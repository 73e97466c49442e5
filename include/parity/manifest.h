// parity/manifest.h: the capability manifest, what an application loads at run time to pick, per
// backend, the model file, optimization level and size budget that a sweep proved correct, with
// the evidence behind each choice, and the self-checks the guard runtime applies to every output.
// Written as TOML (people edit it) or JSON (web apps load it), one schema, versioned:
// "parity.manifest/1" (docs/manifest.md). `parity sweep` writes it; `parity manifest check`
// validates it; parity/guard.h runs a model by it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parity/result.h"

namespace parity::manifest {

inline constexpr const char* kSchema = "parity.manifest/1";

// How Parity set a backend up beyond its EP and options (the rest of its backend spec, docs/probe.md):
// what `manifest verify` needs to create the same backend again. An application needs none of it.
// Only the fields that differ from these defaults are written.
struct Runtime {
  std::string ort_lib;            // native: the libonnxruntime.so loaded; "" = Parity's bundled one
  std::string ort_web;            // browser: onnxruntime-web version or folder; "" = Parity's default
  bool fallback = true;           // false: nodes the EP cannot take fail the session (no CPU fallback)
  std::string adapter = "auto";   // native webgpu: auto | system | swiftshader | ICD json path
  int threads = 0;                // intra-op threads (web-wasm: wasm threads); 0 = ORT's default
  uint64_t max_memory_bytes = 0;  // the backend worker's memory cap; 0 = the run's
  bool count_nodes = true;        // a profiled run counts the nodes per EP
  std::string browser;            // Chromium executable; "" = Parity's default
  std::vector<std::string> browser_args;
  std::string log_level;       // ORT log level in the page; "" = warning
  bool check_features = true;  // refuse fp16 models on adapters without shader-f16
  std::string vulkan_faults;   // native webgpu: limits masked by Parity's layer (vk-mask=), as swept
  bool operator==(const Runtime&) const = default;
};

// The backend whose results counted as right, as the sweep set it up.
struct Reference {
  std::string ep = "cpu";
  std::string graph_optimization = "all";
  std::map<std::string, std::string> provider_options, session_options;
  Runtime runtime;
};

// The inputs every cell of the sweep was fed (docs/probe.md's input flags): seeded random data,
// shapes and ranges, or files (with their sha256, so a changed file is noticed).
struct Inputs {
  uint64_t seed = 0;
  int samples = 1;
  std::map<std::string, int64_t> dims;                        // --dim SYMBOL=N
  std::map<std::string, std::vector<int64_t>> shapes;         // --shape INPUT=D0,D1,...
  std::map<std::string, std::pair<double, double>> ranges;    // --range INPUT=LO,HI
  std::map<std::string, std::string> files;                   // --input INPUT=FILE
  std::map<std::string, std::string> file_sha256;             // of each of `files`
  std::map<std::string, std::pair<int64_t, int64_t>> resize;  // --resize INPUT=H,W
  std::string load_io;                                        // --load-io DIR; "" = none
  uint64_t max_input_bytes = 0;                               // cap on generated inputs; 0 = default
};

// How the evidence was measured, so `parity manifest verify` can measure it again: the reference
// backend, the inputs and the limits of the sweep. Absent in manifests written before verify.
struct SweepSetup {
  Reference reference;
  Inputs inputs;
  double timeout_s = 600;         // per worker
  uint64_t max_memory_bytes = 0;  // per worker; 0 = none
};

// Where a declaration came from: the sweep cell that proved it (or, for a disabled backend, the
// first cell that failed). The cell's file is the declaration's when enabled; a disabled backend
// declares no file, so its evidence names the one that failed (variant .. graph_optimization).
struct Evidence {
  std::size_t cell = 0;
  std::string status;  // "ok" for an enabled backend
  std::optional<double> max_abs, cosine;
  std::string ort_version, adapter;
  std::string date;  // YYYY-MM-DD the sweep ran
  std::string size;  // "x=160x160": the cell's size; "" = the inputs as the settings give them
  std::string variant, file, sha256, precision, graph_optimization;  // disabled backends only
};

// What every output must satisfy before the guard runtime returns it (parity/guard.h). Declared
// per model, and per backend where one needs its own; one pass over buffers that already exist.
// Unset checks are not applied. The first image-like (NCHW) input and output are the pair the
// image checks compare, unless `input`/`output` name others.
struct Checks {
  bool finite = true;  // no NaN or Inf in any float output
  // |mean(output) - mean(input)| at most this: an image-to-image model keeps brightness (the
  // seed's upscaler: > 0.05 is bad output). Per channel when `per_channel`.
  std::optional<double> mean_shift;
  bool per_channel = false;
  std::optional<std::pair<double, double>> range;  // every element of the image output in [lo, hi]
  // Of the image output's spatial grid (grid x grid cells), no cell may hold a larger fraction of
  // exact zeros: a "locally zero" band that the mean alone misses (seed 002's black region).
  std::optional<double> max_zero_fraction;
  int grid = 4;
  // Output H and W = input H and W times this (4 for a x4 super-resolution model).
  std::optional<int64_t> scale;
  std::string input, output;  // the image pair; "" = the first NCHW input and output
  bool operator==(const Checks&) const = default;
};

// How the guard runtime uses the declarations. Absent = these defaults.
struct GuardSettings {
  // Backends to try, first to last; empty = every enabled declaration, accelerators before cpu,
  // in the manifest's order. A label not declared is a problem `manifest check` reports.
  std::vector<std::string> order;
  // Tiled execution of an image-to-image model: halvings of the tile budget after an
  // out-of-memory or bad output, before moving to the next backend.
  int retries = 2;
  int overlap = 16;       // pixels of context each tile gets on every side (at least the receptive field)
  bool preflight = true;  // a known-answer check before a backend is trusted
  bool operator==(const GuardSettings&) const = default;
};

// What one backend may run. `enabled = false` carries the reason instead of a choice.
struct Declaration {
  std::string backend;  // the label, the key of the table
  std::string ep;       // "cpu", "webgpu", "web-wasm", ...
  bool enabled = false;
  std::string reason;  // why not, when !enabled
  std::string variant, file, sha256, precision;
  std::string graph_optimization;  // all | extended | basic | disabled
  std::string max_size;            // "x=160x160": the largest size proven; empty = not swept
  // A size search's suggestion: max_size less the sweep's margin, the size an application should
  // tile or downscale to. Empty without --size-search.
  std::string size_budget;
  // The declared file's largest weight (initializer or Constant) in bytes: a GPU backend holds it in one
  // buffer, so an adapter whose maxBufferSize is smaller cannot run the file (google/xrblocks PR #483: a 128
  // MiB limit, a 384 MiB model). The guard checks it before opening; 0 = not recorded.
  uint64_t largest_weight_bytes = 0;
  std::map<std::string, std::string> provider_options, session_options;
  Runtime runtime;
  std::optional<Evidence> evidence;
  std::optional<Checks> checks;  // this backend's own, replacing the manifest's
};

struct Manifest {
  std::string model;         // the fp32 reference model the sweep judged against
  std::string model_sha256;  // of `model` as the sweep read it; "" in older manifests
  std::string parity_version;
  std::string created;  // YYYY-MM-DD
  std::optional<SweepSetup> sweep;
  std::vector<Declaration> backends;
  std::optional<Checks> checks;  // applied to every backend's outputs
  GuardSettings guard;

  // Reads and checks FILE (.toml, or .json): an Error (bad_input, listing every problem with its
  // line) unless the manifest is usable as it stands.
  static Result<Manifest> load(const std::filesystem::path& path);
  // The declaration labelled `backend`; nullptr when there is none.
  const Declaration* find(const std::string& backend) const;
};

}  // namespace parity::manifest

namespace parity {
using Manifest = manifest::Manifest;
}  // namespace parity
