// sweep/manifest_verify.h: `parity manifest verify`: re-runs the evidence behind every declaration
// of a capability manifest, typically under another ONNX Runtime (--ort-lib) or onnxruntime-web
// release (--ort-web), and says which declarations still hold: the gate a team runs before
// bumping ORT.
//
// Each declaration is re-measured as its evidence cell was: the fp32 model on the reference backend
// against the declared file at the declared opt level and size on the declared backend, with the
// sweep's inputs and limits, as a one-cell sweep (run_cell). Files are pinned by sha256: one that
// changed is flagged, not run, since a result on another file proves nothing about this one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "isolate/backend_runner.h"
#include "manifest/manifest.h"
#include "parity/result.h"
#include "sweep/sweep.h"

namespace parity::sweep {

struct VerifyOptions {
  // The manifest's path: relative files it names are read as written (from the working directory)
  // or, failing that, from the manifest's folder.
  std::filesystem::path manifest_path;
  std::string ort_lib;            // replaces every native declaration's library; "" = as recorded
  std::string ort_web;            // replaces every browser declaration's release or folder; "" = as recorded
  std::string browser;            // Chromium for browser declarations; "" = as recorded
  std::vector<std::string> only;  // backend labels to re-run; empty = every declaration
  isolate::BackendRunner* runner = nullptr;  // shared runner; null = own
};

enum class VerifyOutcome {
  holds,            // enabled, and its evidence cell is correct again
  no_longer_holds,  // enabled, and the backend now fails the cell: wrong numbers, or it cannot run it
  file_changed,     // its file is gone or its sha256 differs: not re-run
  error,            // the cell cannot be judged (the reference failed, inconclusive, cannot run)
  now_passes,       // disabled, and its failing cell is correct now (informational)
  still_fails,      // disabled, and its failing cell still fails (informational)
  not_rerun,        // disabled, with no failing cell recorded (informational)
};
std::string_view to_string(VerifyOutcome o);  // "holds", "no_longer_holds", ...

// One declaration, then and now.
struct DeclarationCheck {
  manifest::Declaration declaration;           // as the manifest has it (its evidence is "then")
  backend::BackendSpec spec;                   // as re-run, overrides applied
  std::string variant, file, opt_level, size;  // the cell re-run ("" size: inputs as given)
  VerifyOutcome outcome = VerifyOutcome::error;
  std::string detail;                                  // one line: why (the failure, the changed file, ...)
  std::optional<CellResult> now;                       // the re-run; absent when nothing ran
  bool counts() const { return declaration.enabled; }  // disabled ones never set the exit status
};

struct VerifyReport {
  std::filesystem::path manifest;
  std::string model;
  std::string ort_lib, ort_web;  // the overrides ("" = none)
  std::vector<DeclarationCheck> checks;
  // Enabled declarations only: 0 every one holds; 1 one no longer holds (or its file changed); 3
  // none of those, but one could not be judged. Disabled ones are informational.
  int exit_code() const;
};

// Errors (bad_input) before anything runs: a manifest without the [sweep] table (written before
// verify existed), a reference model or input file whose sha256 changed, a label in `only` that
// the manifest lacks. A declaration that fails is a result, not an error.
Result<VerifyReport> verify_manifest(const manifest::Manifest& m, const VerifyOptions& options,
                                     const ProgressSink& progress = {});

}  // namespace parity::sweep
