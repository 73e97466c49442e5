// parity/version.h: the Parity release, reported in every JSON file it writes.
#pragma once

#include <string_view>

namespace parity {

inline constexpr std::string_view kParityVersion = "0.1.0";

}  // namespace parity
