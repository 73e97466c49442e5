// report/bisect_report.h: the bisect result as JSON (schema "parity.bisect/1", documented in
// docs/json-schema.md, append-only) and as the text a person reads: the path from the inputs to
// the culprit with each tensor's error.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bisect/bisect.h"
#include "bisect/verify.h"

namespace parity::report {

inline constexpr const char* kBisectSchema = "parity.bisect/1";

nlohmann::json bisect_to_json(const bisect::BisectReport& report);
std::string bisect_text(const bisect::BisectReport& report);

nlohmann::json verify_to_json(const bisect::VerifyReport& report);
std::string verify_text(const bisect::VerifyReport& report);

}  // namespace parity::report
