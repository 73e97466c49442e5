// bisect/tensor_check.h: how bisect and verify judge one tensor (probe's rule), and the one-line
// summary of an error they print. Internal to the bisect module.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bisect/bisect.h"

namespace parity::bisect {

// Compares one tensor the way probe compares an output; `tol` absent = the dtype's default in the
// comparison's arithmetic (probe::default_tolerance_in: "tf32" for a CUDA side, "" for float32).
TensorReport compare_one(const NamedTensor* actual, const NamedTensor& expected,
                         const std::optional<Tolerance>& tol, std::string_view arithmetic = {});

// "max_abs 3.2, cosine 0.1"; `rule` (or "-") when there are no metrics.
std::string describe_error(const std::optional<Comparison>& c, const std::string& rule);

// The tensor named `name` in `v`, or null.
const NamedTensor* find_named(const std::vector<NamedTensor>& v, const std::string& name);

}  // namespace parity::bisect
