// core/json_io.h: JSON forms of core values (Error, tensor metadata), shared by the worker
// protocol and the reports so both spell every field the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "parity/error.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity {

// {"backend","stage","kind","signal","message","hint"}; signal only when non-zero.
nlohmann::json error_to_json(const Error& e);
// Tolerates missing fields (older writers); unknown kind/stage names map to internal/none.
Error error_from_json(const nlohmann::json& j);

// JSON number, or the strings "nan", "inf", "-inf" (JSON has no non-finite numbers).
nlohmann::json json_number(double v);
// The inverse; nullopt for anything else (null included).
std::optional<double> number_from_json(const nlohmann::json& j);

// {"name","dtype","shape"} (plus "strings" for string tensors): the metadata of a tensor.
nlohmann::json tensor_meta_to_json(const NamedTensor& t);

}  // namespace parity
