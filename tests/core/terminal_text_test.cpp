#include "core/terminal_text.h"

#include <gtest/gtest.h>

namespace parity {
namespace {

TEST(TerminalSafe, EscapesControlsAndKeepsText) {
  EXPECT_EQ(terminal_safe("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(terminal_safe("x\x1b]0;pwned\x07"), "x\\x1b]0;pwned\\x07");
  EXPECT_EQ(terminal_safe("\x1b[2K\rok"), "\\x1b[2K\\x0dok");
  EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
  EXPECT_EQ(terminal_safe("c1 \xc2\x9b"
                          "31m"),
            "c1 \\u009b31m");
  EXPECT_EQ(terminal_safe("ls\xe2\x80\xa8"), "ls\\u2028");
  EXPECT_EQ(terminal_safe("bad \x9b byte"), "bad \\x9b byte") << "a raw C1 byte is not UTF-8";
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe6\xa8\xa1\xe5\x9e\x8b"), "caf\xc3\xa9 \xe6\xa8\xa1\xe5\x9e\x8b");
}

// A table cell or a quoted name stays on one line: tab and newline are escaped too.
TEST(TerminalSafe, InlineEscapesLineBreaksToo) {
  EXPECT_EQ(terminal_safe_inline("a\tb\nc"), "a\\tb\\nc");
  EXPECT_EQ(terminal_safe_inline("x\x1b]0;pwned\x07"), "x\\x1b]0;pwned\\x07");
  EXPECT_EQ(terminal_safe_inline("caf\xc3\xa9"), "caf\xc3\xa9");
}

}  // namespace
}  // namespace parity
