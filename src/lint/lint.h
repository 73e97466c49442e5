// lint/lint.h: `parity lint`: which backends will compute a model wrong, said before anything is
// judged. Static rules read the file (rules.h); with --backends a real session on each backend
// adds what only the runtime knows: the nodes its EP does not take, what survives ORT's constant
// folding, a refusal in the runtime's own words, and its version, which the findings base
// (finding_record.h) turns into "reproduced on 1.30.0" or "fixed: passes on 1.31.0".
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "isolate/backend_runner.h"
#include "lint/rules.h"
#include "probe/input_plan.h"
#include "probe/probe.h"

namespace parity::lint {

inline constexpr const char* kLintSchema = "parity.lint/1";

struct LintOptions {
  std::filesystem::path model;
  // The backends to lint for. Empty: every EP path a rule concerns, from the file alone (no
  // session; the newest checked version of each finding decides).
  std::vector<backend::BackendSpec> backends;
  std::filesystem::path findings_dir;  // docs/findings/ of the source tree by default (the CLI's)
  bool live = true;                    // one real session per backend (needs plannable inputs)
  probe::InputSettings inputs;
  isolate::IsolationLimits limits;
  isolate::BackendRunner* runner = nullptr;  // null = a runner of this call's own
};

// What one backend's real session said.
struct BackendCheck {
  std::string label, ep;
  std::string version;  // runtime version (ORT, or onnxruntime-web for web paths); "" unknown
  std::string adapter;
  bool ran = false;
  std::optional<Error> error;
  int64_t nodes_on_backend = -1, nodes_on_cpu = -1;
  std::vector<std::pair<std::string, std::string>> cpu_nodes;  // (node, op) the EP left to the CPU
  std::filesystem::path optimized_model;                       // native: the model as ORT's optimizer left it
};

// One backend a hit applies to.
struct Affected {
  std::string backend;  // label ("webgpu", "old=web-webgpu:ort-web=1.22.0" -> "old"); "" = every backend
  std::string ep;
  std::string version;  // "" when not asked
  Severity severity = Severity::error;
  std::string basis;  // "reproduced on 1.30.0", "fixed: passes on 1.30.0", "live: this session ..."
};

struct LintHit {
  std::string rule;
  Severity severity = Severity::error;  // the worst over `backends`
  std::string title;
  std::vector<std::string> nodes;
  std::string detail;
  std::string why, fix, finding;  // finding: folder id under the findings base; "" none
  std::string evidence;           // that folder, when the findings base holds it
  std::vector<Affected> backends;
};

struct LintReport {
  std::string model;
  std::vector<std::string> scope;  // the backends linted for, as labels
  bool live = false;               // sessions ran
  std::vector<BackendCheck> checks;
  std::vector<LintHit> hits;       // by severity, then rule order
  std::vector<std::string> notes;  // what was not checked and why
  // Sessions were asked for, none ran and none refused the model (each failed on its inputs, or no
  // inputs could be planned): "could not check", one reason per line. Static rules still report.
  std::vector<std::string> unchecked;
  std::size_t count(Severity s) const;
};

// The runtime refused the model itself (loading or creating the session), not the inputs at run.
bool refused_the_model(const BackendCheck& c);

Result<LintReport> run_lint(const LintOptions& options, const probe::ProgressSink& progress = {});

}  // namespace parity::lint
