// report/table_text.h: the small formats every table shares, so a number, a duration or a node
// count reads the same in probe, sweep and the rest.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parity::report {

// "3.1e-06", "0.532", "nan": compact numbers for tables.
std::string short_number(double v);
// "0.4 ms", "274 ms", "26.6 s".
std::string ms_text(double ms);
// Nodes an EP ran: "320/0" (EP/CPU fallback), "395" for the CPU EP itself, "-" when not counted.
std::string nodes_text(std::string_view ep, int64_t on_backend, int64_t on_cpu);
// Rows as left-aligned columns two spaces apart, without trailing blanks; rows[0] is the header.
// Every cell is escaped for the terminal on one line (terminal_safe_inline: a name from a model
// with '\n', '\t' or ESC cannot break a row), and columns are as wide as their widest cell in
// characters (code points), not bytes.
std::string aligned(const std::vector<std::vector<std::string>>& rows);

// The widest a name (tensor, output, node) is shown in a table cell; JSON keeps it whole.
inline constexpr std::size_t kNameCellWidth = 48;
// `text` escaped as a cell is (terminal_safe_inline) and, when longer than `width` characters,
// cut in the middle to `width` with "…", keeping its start and its end (the parts of a long
// generated name that tell outputs apart: "/model/decoder/layers.11/…/Add_output_0").
std::string cell_text(std::string_view text, std::size_t width = kNameCellWidth);

}  // namespace parity::report
