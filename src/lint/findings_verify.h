// lint/findings_verify.h: `parity findings verify`: reruns every finding's repro on its backends
// (or those given, with another ORT or onnxruntime-web release) and says which still fail and
// which are fixed, against what each record says for that version. `record` appends the runs to
// the records, so lint's version judgement follows upstream.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "isolate/backend_runner.h"
#include "lint/finding_record.h"
#include "probe/probe.h"

namespace parity::lint {

inline constexpr const char* kFindingsVerifySchema = "parity.findings-verify/1";

struct FindingsVerifyOptions {
  std::filesystem::path dir;      // the findings base
  std::vector<std::string> only;  // finding ids; empty = all
  // Backends to rerun on. Empty: each record's own backends, built from `defaults` (which carry
  // --ort-lib, --ort-web-version, ...).
  std::vector<backend::BackendSpec> backends;
  backend::BackendSpec defaults;
  isolate::IsolationLimits limits;
  bool record = false;
  isolate::BackendRunner* runner = nullptr;
};

struct FindingCheck {
  std::string id, rule, title;
  std::string backend, ep;  // label and EP path
  std::string version;      // the runtime that ran ("" when it did not say)
  std::string adapter;
  bool ran = false;      // false: the backend is not available here (no such EP, no adapter)
  bool fails = false;    // the repro still diverges, or the runtime errors on it
  std::string measured;  // "max_abs 3.2 ..." or the error's first line, or why it did not run
  // What the record held for exactly this backend and version before this run.
  std::optional<bool> recorded_fails;
  bool recorded_now = false;  // appended to the record (record = true)
};

struct FindingsVerifyReport {
  std::filesystem::path dir;
  std::vector<FindingCheck> checks;
  std::size_t still_failing() const;
  std::size_t fixed() const;
  std::size_t changed() const;  // results that differ from the record for that version
};

Result<FindingsVerifyReport> verify_findings(const FindingsVerifyOptions& options,
                                             const probe::ProgressSink& progress = {});

}  // namespace parity::lint
