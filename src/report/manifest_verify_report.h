// report/manifest_verify_report.h: `parity manifest verify` rendered: one row per declaration (the
// cell re-run, then vs now) with a line of why under it for each that does not hold, and as JSON
// ("schema": "parity.manifest-verify/1", append-only, docs/manifest.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sweep/manifest_verify.h"

namespace parity::report {

inline constexpr const char* kManifestVerifySchema = "parity.manifest-verify/1";

std::string manifest_verify_table(const sweep::VerifyReport& report);
nlohmann::json manifest_verify_to_json(const sweep::VerifyReport& report);

}  // namespace parity::report
