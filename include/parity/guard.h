// parity/guard.h: run a model in an application the way a capability manifest says is safe.
//
//   auto manifest = parity::Manifest::load("caps.toml");
//   auto session = parity::GuardedSession::open("model.onnx", *manifest);
//   auto out = (*session)->run(inputs);  // outputs that passed every check, or a typed Error
//
// What it does, in order (docs/guard.md):
//   - picks backends from the manifest (its guard.order, else accelerators before cpu), skipping
//     those declared `enabled = false` and refusing them when the caller forces one;
//   - opens each one with its declared file, opt level and options; a failure to start (no
//     adapter, an ORT error, a crashed worker in isolated mode) is recorded and the next is tried;
//   - runs a known-answer check (preflight) before trusting a backend: the model on the manifest's
//     sample, compared with the reference backend's outputs for the same file; the verdict is
//     cached per backend, adapter, runtime version and file, so it is paid once per machine;
//   - checks every output (finite, brightness kept, value range, zero band, output shape) and never
//     returns one that fails;
//   - on an out-of-memory or a failed check of an image-to-image model, splits the input into
//     overlapping tiles, halving the budget up to guard.retries times, then moves to the next backend.
// Every decision is an Event, passed to the callback as it happens and kept in the result.
//
// Public headers only: this library links ONNX Runtime at run time (dlopen), like Parity itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/error.h"
#include "parity/manifest.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity {

struct GuardEvent {
  enum class Kind {
    skipped,            // declared enabled = false (not forced): not tried
    refused,            // forced by the caller but declared unfit: refused, with the reason
    open_failed,        // the backend could not start: the error says why
    preflight_passed,   // the known-answer check matched (or its cached verdict did)
    preflight_failed,   // the known-answer check did not match: the backend is not trusted
    preflight_skipped,  // no check applies (the reference backend itself)
    selected,           // this backend now serves runs
    run_failed,         // a run returned an error (out of memory, a crashed worker, ...)
    check_failed,       // an output failed a self-check: it was not returned
    retry_tiled,        // the run is repeated in tiles of a smaller budget
    fell_back,          // this backend is given up for the rest of the session
  };
  Kind kind = Kind::selected;
  std::string backend;         // the declaration's label
  std::string message;         // one line with the numbers ("mean shift 0.31 > 0.05 on channel 1")
  std::optional<Error> error;  // the typed error, for open_failed and run_failed
};
std::string_view to_string(GuardEvent::Kind kind);

// The result of one self-check on one run.
struct CheckResult {
  std::string check;  // "finite", "mean_shift", "range", "zero_fraction", "scale"
  bool passed = true;
  std::string detail;  // measured value against the limit
};

struct GuardedRun {
  std::vector<NamedTensor> outputs;
  std::string backend;              // the label that produced them
  int tiles = 1;                    // 1 = the whole input in one run
  int64_t tile_budget_pixels = 0;   // the budget of the last tiling; 0 = not tiled
  std::vector<CheckResult> checks;  // of the returned outputs
  std::vector<GuardEvent> events;   // everything this run decided, in order
  double wall_ms = 0;
  double checks_ms = 0;  // of which the self-checks (the guard's own cost)
};

struct GuardOptions {
  // Try this backend first even where the manifest's order puts it later. A backend declared
  // unfit is refused (a `refused` event) and the manifest's order goes on: a forced backend never
  // turns a working application into a broken one.
  std::string force;
  // Run this backend alone, with no fallback: an acceptance run judges each declaration on its own.
  // A backend declared unfit (or not declared) is refused, and open fails.
  std::string only;
  // Run every backend in a worker process of `worker_exe`, so a crashing driver cannot take the
  // application down (each run is then a fresh process: measured in docs/guard.md).
  bool isolated = false;
  std::filesystem::path worker_exe;  // empty = $PARITY_WORKER, else the `parity` this library was built with
  double worker_timeout_s = 600;
  // Where preflight verdicts are cached; empty = $XDG_CACHE_HOME/parity (or ~/.cache/parity).
  // "-" disables the cache (every open runs the check).
  std::filesystem::path cache_dir;
  // Where paths in the manifest are relative to (model, variant files); empty = the model's folder.
  std::filesystem::path base_dir;
  std::function<void(const GuardEvent&)> on_event;  // called as decisions happen (any thread)
};

class GuardedSession {
 public:
  // Opens the first backend of the chain that starts and passes its preflight. The Error, when
  // none does, lists every backend with its reason. `model` is the file the manifest describes
  // (the reference model); each declaration's own file (a variant) is found beside it.
  static Result<std::unique_ptr<GuardedSession>> open(const std::filesystem::path& model,
                                                      const Manifest& manifest, GuardOptions options = {});
  ~GuardedSession();
  GuardedSession(const GuardedSession&) = delete;
  GuardedSession& operator=(const GuardedSession&) = delete;

  // Runs `inputs` and returns outputs that passed every check, with what it took. Thread-safe:
  // concurrent calls share the session (ORT runs them in parallel); a fallback is seen by every
  // later call.
  Result<GuardedRun> run(const std::vector<NamedTensor>& inputs);

  // The backend serving runs now, and what opening decided.
  std::string backend() const;
  const std::vector<GuardEvent>& open_events() const;

 private:
  struct Impl;
  explicit GuardedSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace parity
