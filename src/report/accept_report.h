// report/accept_report.h: `parity accept` rendered: one row per declared backend (status, the
// backend that served, tiles, checks, time), then per backend the events that decided it and the
// first failure; and as JSON ("schema": "parity.accept/1", append-only, docs/guard.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "guard/acceptance.h"
#include "report/document.h"

namespace parity::report {

inline constexpr const char* kAcceptSchema = "parity.accept/1";

std::string accept_table(const guard::AcceptReport& report);
nlohmann::json accept_to_json(const guard::AcceptReport& report);
// `--html/--markdown`: the same rows coloured by result, every check with its measured value, the
// events that decided each backend, and each image-like output as a picture side by side (all drawn
// on the first backend's value range), so a black or washed-out result shows at once.
Document accept_document(const guard::AcceptReport& report);
// One guard event as JSON ({kind, backend, message, error?}), shared with the guard's other reports.
nlohmann::json guard_event_to_json(const GuardEvent& e);

}  // namespace parity::report
