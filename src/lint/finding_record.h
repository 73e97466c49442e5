// lint/finding_record.h: the machine-readable record of a finding folder under docs/findings/
// (finding.json, schema parity.finding/1): what is wrong, the lint rule that predicts it, how to
// rerun its repro, and every run of that repro on a backend and runtime version with its result.
// `parity findings verify --record` appends runs; `parity lint` reads them to say whether the
// runtime a user chose is affected, so a bug fixed upstream stops being flagged where it is fixed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parity/result.h"

namespace parity::lint {

inline constexpr const char* kFindingSchema = "parity.finding/1";
inline constexpr const char* kFindingFile = "finding.json";

// One run of the finding's repro.
struct FindingRun {
  std::string backend;   // the EP path: "webgpu", "web-jsep", "web-webgpu", "web-wasm", "cpu"
  std::string version;   // the runtime's version: ORT for native, onnxruntime-web for web paths
  bool fails = false;    // the repro still diverges (or errors) there
  std::string measured;  // "max_abs 3.2, cosine 0.1", or the error's first line
  std::string adapter;   // WebGPU adapter, when there is one
  std::string date;      // "2026-12-06"
};

struct FindingRecord {
  std::filesystem::path folder;  // where finding.json was read from
  std::string id;                // the folder's name
  std::string rule;              // the lint rule id that predicts it
  std::string title;             // one line: what is wrong
  std::string upstream;          // an upstream issue, if any
  // The backends the repro is verified on by default (findings verify), as EP paths.
  std::vector<std::string> backends;
  std::vector<FindingRun> runs;  // oldest first
};

Result<FindingRecord> read_finding(const std::filesystem::path& folder);
Status write_finding(const FindingRecord& record);  // into record.folder, atomically
// Every immediate subfolder of `dir` holding a finding.json, sorted by id. A missing `dir` is an
// io error; a damaged record is a bad_input error naming its file.
Result<std::vector<FindingRecord>> read_findings(const std::filesystem::path& dir);

// -1, 0, 1 comparing dotted versions numerically ("1.22.0" < "1.30.0"; a "-dev" suffix sorts
// before the release).
int compare_versions(const std::string& a, const std::string& b);

// What a record says about `backend` at `version`.
struct VersionVerdict {
  enum class State { fails, passes, unchecked };
  State state = State::unchecked;
  bool exact = false;  // a run at exactly this version; otherwise the nearest checked one decides
  std::string basis;   // "reproduced on 1.30.0", "passes on 1.30.0 (nearest checked: ...)"
};
// The run at `version` decides; without one, the latest run at the nearest checked version below
// it, else above it. An empty `version` (not asked) takes the newest checked version. No run on
// `backend` at all: unchecked.
VersionVerdict verdict_for(const FindingRecord& record, const std::string& backend,
                           const std::string& version);

}  // namespace parity::lint
