#include "report/table_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "backend/backend.h"
#include "core/terminal_text.h"

namespace parity::report {

std::string short_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e5) return fmt::format("{:.4g}", v);
  return fmt::format("{:.2e}", v);
}

std::string ms_text(double ms) {
  if (ms >= 1000) return fmt::format("{:.1f} s", ms / 1000);
  return ms < 10 ? fmt::format("{:.1f} ms", ms) : fmt::format("{:.0f} ms", ms);
}

std::string nodes_text(std::string_view ep, int64_t on_backend, int64_t on_cpu) {
  if (on_backend < 0) return "-";
  if (backend::runs_on_cpu_kernels(std::string(ep))) return std::to_string(on_backend);  // CPU is the EP
  return fmt::format("{}/{}", on_backend, on_cpu < 0 ? 0 : on_cpu);
}

namespace {

// Characters of UTF-8 text: every byte that does not continue a sequence (escaped text is valid).
std::size_t char_count(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

// Byte offset of the `n`th character of `s` (s.size() past the end).
std::size_t char_offset(std::string_view s, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t seen = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80 && seen++ == n) return i;
  return s.size();
}

}  // namespace

std::string cell_text(std::string_view text, std::size_t width) {
  std::string safe = terminal_safe_inline(text);
  const std::size_t n = char_count(safe);
  if (n <= width || width < 3) return safe;
  const std::size_t head = (width - 1) / 2 + (width - 1) % 2, tail = width - 1 - head;
  return safe.substr(0, char_offset(safe, head)) + "\u2026" + safe.substr(char_offset(safe, n - tail));
}

std::string aligned(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : rows) {
    cells.emplace_back();
    for (const auto& cell : row) cells.back().push_back(terminal_safe_inline(cell));
  }
  std::vector<std::size_t> width(cells.empty() ? 0 : cells[0].size(), 0);
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], char_count(row[c]));
  std::string out;
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line.append((c < width.size() ? width[c] - char_count(row[c]) : 0) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace parity::report
