// core/terminal_colour.h: colour for the verdicts in a verb's terminal tables, and only where a
// person reads them: on a TTY, never with NO_COLOR set (https://no-color.org) or TERM=dumb, so pipes,
// files and CI logs stay plain text.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace parity {

// Whether text written to `stream` should carry colour.
bool colour_wanted(std::FILE* stream);

// `text` with each verdict word that stands as a table cell (at a line's start or after two
// spaces, and before two spaces, " (" or the line's end) wrapped in an ANSI colour: green for
// ok/match/passed/clean-error, red for mismatch/failed/crashed/hung/timeout/oom/error/wrong-output,
// yellow for inconclusive/flaky/unfit/partly-wrong, dim for skipped/unaffected/not-supported. Words
// inside prose are left alone.
std::string colour_verdicts(std::string_view text);

}  // namespace parity
