// core/text.h: small text helpers shared by reports and error handling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parity {

// RFC 4648 base64 with padding (data: URIs, tensors embedded in pages).
inline std::string base64_encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

// The bytes of RFC 4648 base64 `text` (padding optional); nullopt on a character outside the
// alphabet (CDP returns screenshots this way).
inline std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=')
      break;
    else
      return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

// Serialised JSON made safe to embed in an HTML <script> block: '<', '>' and '&' become \u003c,
// \u003e and \u0026, and U+2028/U+2029 \u2028/\u2029, so no string in it (a tensor name from a
// model) can close the block ("</script>") or open a comment ("<!--"). Outside strings JSON holds
// none of these, so the result parses to the same value.
inline std::string json_for_script(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (std::size_t i = 0; i < json_text.size(); ++i) {
    const char c = json_text[i];
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else if (c == '\xe2' && i + 2 < json_text.size() && json_text[i + 1] == '\x80' &&
             (json_text[i + 2] == '\xa8' || json_text[i + 2] == '\xa9')) {
      out += json_text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else
      out += c;
  }
  return out;
}

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
