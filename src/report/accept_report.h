// report/accept_report.h: `parity accept` rendered: one row per declared backend (status, the
// backend that served, tiles, checks, time), then per backend the events that decided it and the
// first failure; and as JSON ("schema": "parity.accept/1", append-only, docs/guard.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "guard/acceptance.h"

namespace parity::report {

inline constexpr const char* kAcceptSchema = "parity.accept/1";

std::string accept_table(const guard::AcceptReport& report);
nlohmann::json accept_to_json(const guard::AcceptReport& report);
// One guard event as JSON ({kind, backend, message, error?}), shared with the guard's other reports.
nlohmann::json guard_event_to_json(const GuardEvent& e);

}  // namespace parity::report
