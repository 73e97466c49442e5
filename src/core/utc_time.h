// core/utc_time.h: the current UTC time as text, for the dates reports and manifests record.
#pragma once

#include <string>

namespace parity {

// strftime of the current UTC time: "%Y-%m-%d" -> "2026-12-05",
// "%Y-%m-%dT%H:%M:%SZ" (the default, ISO 8601) -> "2026-12-05T19:02:11Z".
std::string utc_now(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace parity
