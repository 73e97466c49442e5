#include "report/table_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "backend/backend.h"

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

std::string aligned(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(rows.empty() ? 0 : rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 == row.size() ? row[c] : fmt::format("{:<{}}  ", row[c], width[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace parity::report
