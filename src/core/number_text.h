// core/number_text.h: the one checked way to read a number a user typed (options, backend spec
// keys, input ranges). The whole text must be the number: no trailing letters ("4abc"), no sign on
// an unsigned value (a "-1" seed does not wrap to 2^64-1), decimal only (CLI11 and strtol read "010"
// as 8), within the stated range, and for reals finite (NaN or inf is no tolerance and no range).
// Errors are bad_input at Stage::parse_args (exit 2) naming `what` and the text.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "parity/result.h"

namespace parity {

Result<int64_t> parse_integer(std::string_view text, std::string_view what,
                              int64_t lo = std::numeric_limits<int64_t>::min(),
                              int64_t hi = std::numeric_limits<int64_t>::max());
Result<uint64_t> parse_unsigned(std::string_view text, std::string_view what,
                                uint64_t hi = std::numeric_limits<uint64_t>::max());
Result<double> parse_finite(std::string_view text, std::string_view what);

}  // namespace parity
