#include "backend/ort/ort_telemetry.h"

#include <cstdlib>
#include <string_view>

namespace parity::backend::ort {

bool ort_telemetry_allowed() {
  const char* v = std::getenv("PARITY_ORT_TELEMETRY");
  return v != nullptr && (std::string_view(v) == "on" || std::string_view(v) == "1");
}

std::vector<std::pair<std::string, std::string>> ort_telemetry_off_env() {
  if (ort_telemetry_allowed()) return {};
  return {{"ORT_DISABLE_TELEMETRY", "1"}, {"ORT_TELEMETRY_DISABLED", "1"}};
}

}  // namespace parity::backend::ort
