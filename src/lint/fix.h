// lint/fix.h: `parity lint --fix OUT.onnx --apply RULE,...`: exact rewrites for the hits of the
// rules asked for (each opt-in), verified before the file is written: the fixed model must give the
// original's outputs on the reference backend, and every linted backend is probed before and after
// so the report shows both verdicts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lint/lint.h"

namespace parity::lint {

// The rules --fix can apply.
const std::vector<std::string>& fixable_rules();

struct FixOptions {
  LintOptions lint;                // the model, backends, inputs, limits of the lint run
  std::filesystem::path out;       // where the fixed model goes (only once verified)
  std::vector<std::string> rules;  // rules to apply; "all" = every fixable one that fired
  backend::BackendSpec reference;  // computes folded constants and judges the fixed model
};

struct AppliedFix {
  std::string rule;
  std::vector<std::string> nodes;
  std::string what;  // "scale and zero point expanded to 8 elements", "3 nodes folded into 1 initializer"
};

struct FixBackendVerdict {
  std::string backend;
  std::string before, after;  // probe statuses of the original and the fixed model
  bool ok_after = false;
  std::string detail;  // the fixed model's worst output on this backend
};

struct FixReport {
  std::filesystem::path out;
  std::vector<AppliedFix> applied;
  std::vector<std::string> skipped;  // "rule: why"
  bool reference_same = false;       // the fixed model matches the original on the reference
  std::string reference_detail;
  std::vector<FixBackendVerdict> backends;
  bool written = false;
};

Result<FixReport> fix_model(const FixOptions& options, const LintReport& lint,
                            const probe::ProgressSink& progress = {});

}  // namespace parity::lint
