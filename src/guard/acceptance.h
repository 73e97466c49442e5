// guard/acceptance.h: `parity accept`, the pre-release gate of seed 002 as one command: the
// application's own sample through the guard on every backend the manifest declares fit, each on
// its own (no fallback), with the manifest's checks plus the task's assertions. A backend declared
// fit that fails any of them fails the gate. Native declarations run in GuardedSession, browser
// ones in the web module in headless Chromium (web_acceptance.h).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "guard/task_checks.h"
#include "parity/guard.h"
#include "parity/result.h"

namespace parity::guard {

struct AcceptOptions {
  std::filesystem::path manifest_path;
  std::filesystem::path model;                           // empty = the manifest's model, beside the manifest
  std::map<std::string, std::filesystem::path> samples;  // input name -> file (image, .npy, .pb)
  std::vector<std::string> only;                         // declaration labels; empty = all
  bool isolated = false;                                 // each backend in worker processes
  TaskChecks task;
  std::filesystem::path cache_dir;  // preflight cache; empty = default, "-" = none
  std::function<void(const std::string&)> progress;
};

enum class AcceptStatus { passed, failed, unfit };
std::string_view to_string(AcceptStatus s);

struct BackendAcceptance {
  std::string label, ep;
  AcceptStatus status = AcceptStatus::failed;
  std::string reason;              // the first failure, or why unfit
  std::vector<GuardEvent> events;  // opening and the run, in order
  std::optional<GuardedRun> run;   // when the guard returned outputs
  std::vector<CheckResult> task;   // the task's assertions on those outputs
  double wall_ms = 0;
};

struct AcceptReport {
  std::string manifest, model;
  std::vector<std::string> samples;  // "x=photo.png"
  std::vector<BackendAcceptance> backends;
  // 0 every declared-fit backend passed, 1 one failed.
  int exit_code() const;
};

Result<AcceptReport> run_acceptance(const AcceptOptions& options);

}  // namespace parity::guard
