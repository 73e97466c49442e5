// report/chaos_report.h: the robustness table, the JSON and the report document of a chaos run (schema
// "parity.chaos/1", append-only; documented in docs/chaos.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "chaos/chaos_runner.h"
#include "report/document.h"

namespace parity::report {

inline constexpr const char* kChaosSchema = "parity.chaos/1";

// One row per fault (baseline first): FAULT, OUTCOME, FIRED, STAGE, DETAIL; then counts and the
// repro command of every crash or hang.
std::string chaos_table(const chaos::ChaosReport& report);

nlohmann::json chaos_to_json(const chaos::ChaosReport& report);

// `--html/--markdown`: the same table with outcome colours (clean-error green, unaffected grey,
// wrong-output amber, crashed and hung red), the counts, and the one-line repro of every crash or hang.
Document chaos_document(const chaos::ChaosReport& report);

}  // namespace parity::report
