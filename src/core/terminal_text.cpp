#include "core/terminal_text.h"

#include <fmt/format.h>

#include <cstdint>

namespace parity {
namespace {

// The length of the valid UTF-8 sequence starting at text[i] and its code point; 0 when the bytes
// there are not one (a lone continuation byte, an overlong form, a truncated sequence).
std::size_t utf8_at(std::string_view text, std::size_t i, uint32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

std::string escaped(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const std::size_t n = utf8_at(text, i, cp);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (!keep_line_breaks && (cp == '\n' || cp == '\t'))
      out += cp == '\n' ? "\\n" : "\\t";
    else if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f)
      out += fmt::format("\\x{:02x}", cp);
    else if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
      out += fmt::format("\\u{:04x}", cp);
    else
      out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) { return escaped(text, true); }

std::string terminal_safe_inline(std::string_view text) { return escaped(text, false); }

}  // namespace parity
