// report/hunt_report.h: the summary table and the JSON of a hunt (schema "parity.hunt/1",
// append-only; documented in docs/hunt.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "hunt/hunt.h"
#include "report/document.h"

namespace parity::report {

// Per space: cases run, matching, wrong, failing, not runnable; then one line per finding (id,
// boundary, folder) and what was left (budget, flaky).
std::string hunt_text(const hunt::HuntReport& report);

nlohmann::json hunt_to_json(const hunt::HuntReport& report);

// `--html/--markdown`: cases by space with outcome colours, then per finding its description,
// facts, boundary table (essential parameters marked), pattern lines and the verify command.
Document hunt_document(const hunt::HuntReport& report);

}  // namespace parity::report
