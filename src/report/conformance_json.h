// report/conformance_json.h: the "parity.conformance/1" result file (docs/conformance.md
// documents every field; append-only) and reading it back for `diff` and `--expect`.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "conformance/runner.h"
#include "parity/result.h"

namespace parity::report {

nlohmann::json conformance_to_json(const conformance::ConformanceReport& report);
// Reads what conformance_to_json wrote (missing optional fields keep their defaults). Errors: not a
// parity.conformance/1 document, or a state name it does not know.
Result<conformance::ConformanceReport> conformance_from_json(const nlohmann::json& j);
Result<conformance::ConformanceReport> read_conformance_file(const std::filesystem::path& path);

}  // namespace parity::report
