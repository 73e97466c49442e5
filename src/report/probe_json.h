// report/probe_json.h: the machine-readable probe result (schema documented in
// docs/json-schema.md; versioned by "schema": "parity.probe/1", append-only).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "model/onnx_model.h"
#include "parity/metrics.h"
#include "probe/probe.h"

namespace parity::report {

inline constexpr const char* kProbeSchema = "parity.probe/1";

nlohmann::json probe_to_json(const probe::ProbeReport& report);

// A declared shape: numbers, symbols, null for a dim with neither; null for an unknown rank.
nlohmann::json dims_to_json(const model::ValueInfo& v);
nlohmann::json stats_to_json(const TensorStats& s);
nlohmann::json comparison_to_json(const Comparison& c);
// A region map: grid, wrong cells, extent, the picture rows and per-cell zero fractions.
nlohmann::json regions_to_json(const RegionMap& m);
// The rule a tensor was judged by; with `c`, also the absolute bound in force for that tensor.
nlohmann::json tolerance_to_json(const Tolerance& t, const Comparison* c = nullptr);

}  // namespace parity::report
