// bisect/verify.h: `parity verify`: rerun a repro folder written by bisect, replaying the
// recorded backend spec and tolerance, and say whether the backend still fails.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bisect/bisect.h"

namespace parity::bisect {

// Schema of the repro folder's repro.json, read back by `parity verify`.
inline constexpr const char* kReproSchema = "parity.repro/1";

// Fields of repro.json that `parity verify` needs before it can parse a backend spec.
struct ReproMeta {
  std::string target;  // the spec text as given to bisect ("webgpu:opt=basic")
  std::string reference;
  std::string measured;  // one line: the error measured at bisect time
  // The resolved target (EP, every key, opt level, fallback, ORT library) and the fixed tolerance
  // bisect ran with; absent in folders written before they were recorded.
  std::optional<backend::BackendSpec> target_spec;
  std::optional<Tolerance> tolerance;  // absent: by dtype
  std::string ort_version, adapter;    // what ran at bisect time
  std::string command;                 // the bisect command, shell-quoted
};
Result<ReproMeta> read_repro_meta(const std::filesystem::path& dir);

struct VerifyOptions {
  std::filesystem::path dir;
  backend::BackendSpec backend;        // the CLI defaults it to ReproMeta::target_spec (or its text)
  std::optional<Tolerance> tolerance;  // the CLI defaults it to ReproMeta::tolerance; absent: by dtype
  isolate::IsolationLimits limits;
  std::string worker_exe;
  std::string test_fault_env;
  isolate::BackendRunner* runner = nullptr;  // null = a runner of this call's own
  // What the record named and this replay did not use (ReplaySpec::not_used), for the report.
  std::vector<std::string> not_used;
};

struct VerifyReport {
  std::string backend;
  bool still_fails = false;
  std::optional<Error> error;  // the backend could not run (exit 3)
  std::vector<TensorReport> outputs;
  std::string ort_version;
  std::string adapter;
  std::string recorded_error;  // the measured error written at bisect time
  // How this run differs from the one that wrote the repro (another runtime, another adapter):
  // a "fixed" from another setup is not evidence that upstream fixed it.
  std::vector<std::string> differences;
  std::string setup;      // "webgpu (EP webgpu, opt basic, fallback on)": what was replayed
  std::string tolerance;  // "tolerance atol 0.01 + rtol 0*|ref| (recorded)" or "... (by dtype)"
  // Programs, libraries and paths the repro named that were not used (bisect/replay_trust.h).
  std::vector<std::string> not_used;
};

// Reruns a repro folder: model.onnx on test_data_set_0 inputs, compared with its output_K.pb.
Result<VerifyReport> run_verify(const VerifyOptions& options, const ProgressSink& progress = {});

}  // namespace parity::bisect
