#include "core/number_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace parity {
namespace {

Error not_a_number(std::string_view text, std::string_view what, const std::string& expected) {
  return make_error(ErrorKind::bad_input, Stage::parse_args,
                    std::string(what) + ": '" + std::string(text) + "' is not " + expected,
                    "write a plain decimal number, nothing after it");
}

}  // namespace

Result<int64_t> parse_integer(std::string_view text, std::string_view what, int64_t lo, int64_t hi) {
  const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);  // decimal; a '+' is not taken
  if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi)
    return not_a_number(text, what, range);
  return v;
}

Result<uint64_t> parse_unsigned(std::string_view text, std::string_view what, uint64_t hi) {
  const std::string range = "a whole number from 0 to " + std::to_string(hi);
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  // from_chars on an unsigned type refuses a '-' rather than wrapping it, as strtoull would.
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v > hi) return not_a_number(text, what, range);
  return v;
}

Result<double> parse_finite(std::string_view text, std::string_view what) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v))
    return not_a_number(text, what, "a finite number");
  return v;
}

}  // namespace parity
