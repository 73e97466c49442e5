// report/lint_report.h: `parity lint` as a table with the why, the fix and the evidence of each hit,
// and as JSON (schema parity.lint/1, docs/lint.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "lint/lint.h"
#include "report/document.h"

namespace parity::report {

std::string lint_text(const lint::LintReport& r);
// `--html/--markdown`: each backend's session, the hits coloured by severity (error red, warning
// amber, info grey), and per hit its why, the backends it affects and on what basis, the fix and
// the evidence folder.
Document lint_document(const lint::LintReport& r);
nlohmann::json lint_to_json(const lint::LintReport& r);

}  // namespace parity::report

#include "lint/findings_verify.h"
#include "lint/fix.h"

namespace parity::report {

// One row per finding and backend: still fails / fixed, against what the record held.
// The fixes applied, the reference check and each backend's verdict before and after.
std::string fix_text(const lint::FixReport& r);
nlohmann::json fix_to_json(const lint::FixReport& r);

std::string findings_verify_text(const lint::FindingsVerifyReport& r);
nlohmann::json findings_verify_to_json(const lint::FindingsVerifyReport& r);

}  // namespace parity::report
