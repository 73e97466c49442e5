// The shared table format: a cell can neither break its row nor push the columns out of line.
#include "report/table_text.h"

#include <gtest/gtest.h>

#include <string>

namespace parity::report {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    out.push_back(text.substr(at, nl - at));
  return out;
}

// Issue 36/44: a name from a model with '\n' started a row of its own, and ESC reached the terminal.
TEST(TableText, EveryCellIsEscapedOntoOneLine) {
  const auto lines = lines_of(aligned({{"NAME", "VALUE"}, {"y\nfake row\tx", "1"}, {"z\x1b]0;t\x07", "2"}}));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], "y\\nfake row\\tx  1");
  EXPECT_EQ(lines[2], "z\\x1b]0;t\\x07   2");
}

// Columns line up by characters: a cell holding "…" (3 bytes) is one character wide.
TEST(TableText, ColumnsAlignByCharactersNotBytes) {
  const auto lines = lines_of(aligned({{"NAME", "VALUE"}, {"a\u2026b", "1"}, {"abcde", "2"}}));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], "a\u2026b    1");
  EXPECT_EQ(lines[2], "abcde  2");
}

// A long name keeps its start and its end around a middle ellipsis, at a fixed width.
TEST(TableText, LongNamesAreCutInTheMiddle) {
  const std::string name = "/model/decoder/" + std::string(120, 'x') + "/Add_output_0";
  const std::string cell = cell_text(name);
  EXPECT_EQ(cell.size(), kNameCellWidth - 1 + 3) << cell;  // "…" is 3 bytes
  EXPECT_EQ(cell.rfind("/model/decoder/", 0), 0u) << cell;
  EXPECT_EQ(cell.substr(cell.size() - 13), "/Add_output_0") << cell;
  EXPECT_NE(cell.find("\u2026"), std::string::npos) << cell;
  EXPECT_EQ(cell_text("short"), "short");
  EXPECT_EQ(cell_text("a\tb", 10), "a\\tb") << "escaped like any cell";
  EXPECT_EQ(cell_text("abcdefgh", 5), "ab\u2026gh");
}

}  // namespace
}  // namespace parity::report
