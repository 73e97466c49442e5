#include "core/json_io.h"

#include <cmath>
#include <limits>

namespace parity {

nlohmann::json error_to_json(const Error& e) {
  nlohmann::json j = {{"backend", e.backend},
                      {"stage", to_string(e.stage)},
                      {"kind", to_string(e.kind)},
                      {"message", e.message},
                      {"hint", e.hint}};
  if (e.signal != 0) {
    j["signal"] = signal_name(e.signal);
    j["signal_number"] = e.signal;
  } else {
    j["signal"] = nullptr;
  }
  return j;
}

Error error_from_json(const nlohmann::json& j) {
  Error e;
  e.backend = j.value("backend", "");
  e.stage = stage_from_string(j.value("stage", "none")).value_or(Stage::none);
  e.kind = error_kind_from_string(j.value("kind", "internal")).value_or(ErrorKind::internal);
  e.message = j.value("message", "");
  e.hint = j.value("hint", "");
  if (j.contains("signal_number") && j["signal_number"].is_number_integer()) e.signal = j["signal_number"];
  return e;
}

nlohmann::json tensor_meta_to_json(const NamedTensor& t) {
  nlohmann::json j = {{"name", t.name}, {"dtype", dtype_name(t.tensor.dtype())}, {"shape", t.tensor.shape()}};
  if (t.tensor.dtype() == DType::string) j["strings"] = t.tensor.strings();
  return j;
}

nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::optional<double> number_from_json(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

}  // namespace parity
