// core/text.h: small text helpers shared by reports and error handling.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace parity {

// The first line of `text` (all of it when it has none): runtime messages often go on with a stack
// or a graph dump that a one-line summary must not carry.
inline std::string first_line(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

// `text` cut at every `sep`, empty pieces kept ("a,,b" -> a, "", b; "" -> one empty piece), so a
// caller can refuse an empty entry with its own message.
inline std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(sep, start);
    out.emplace_back(
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

}  // namespace parity
