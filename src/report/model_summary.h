// report/model_summary.h: `parity inspect` rendered: a model's interface, size and ops as text
// and as JSON ("schema": "parity.inspect/1", append-only, docs/inspect.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/onnx_model.h"
#include "probe/input_plan.h"

namespace parity::report {

inline constexpr const char* kInspectSchema = "parity.inspect/1";

// "[batch, 3, 640, 640]", "[?, 10]" ('?' = unnamed dim), "unknown rank".
std::string dims_to_string(const model::ValueInfo& v);

// The summary a user reads before running a model; `missing` adds the flags it still needs.
std::string model_summary(const model::ModelInfo& m, const probe::MissingShapes& missing);
nlohmann::json model_summary_to_json(const model::ModelInfo& m, const probe::MissingShapes& missing);

}  // namespace parity::report
