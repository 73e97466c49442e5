// report/chaos_report.h: the robustness table and the JSON of a chaos run (schema
// "parity.chaos/1", append-only; documented in docs/chaos.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "chaos/chaos_runner.h"

namespace parity::report {

inline constexpr const char* kChaosSchema = "parity.chaos/1";

// One row per fault (baseline first): FAULT, OUTCOME, FIRED, STAGE, DETAIL; then counts and the
// repro command of every crash or hang.
std::string chaos_table(const chaos::ChaosReport& report);

nlohmann::json chaos_to_json(const chaos::ChaosReport& report);

}  // namespace parity::report
