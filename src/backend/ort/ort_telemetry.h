// backend/ort/ort_telemetry.h: keeping ONNX Runtime's telemetry off. No ORT headers here, so
// the isolation layer can build a worker's environment from it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace parity::backend::ort {

// ONNX Runtime 1.29+ starts a telemetry uploader (Microsoft's 1DS SDK) when the library first
// initialises: it phones home and leaves mat-debug-PID.log files in the temp directory. Parity
// switches it off in every worker, and in any process that loads the library itself
// (load_ort_library), unless PARITY_ORT_TELEMETRY=on. The switch must be in the environment before
// the library loads, so the parent passes these variables to each worker;
// ORT has read ORT_DISABLE_TELEMETRY (1.29, 1.30) and ORT_TELEMETRY_DISABLED (later) so far.
bool ort_telemetry_allowed();
std::vector<std::pair<std::string, std::string>> ort_telemetry_off_env();

}  // namespace parity::backend::ort
