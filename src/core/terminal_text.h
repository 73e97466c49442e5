// core/terminal_text.h: text from models, records and page replies made safe for a terminal.
//
// A tensor, node or file name is data: a model can hold ESC]0;...BEL (retitle the terminal),
// ESC]52 (write the clipboard) or ESC[2K with a carriage return (erase and rewrite the verdict
// line). Every line a verb prints goes through terminal_safe() before Parity adds its own colour
// (terminal_colour.h), so only Parity's own escapes reach the screen. JSON output is unaffected:
// JSON escapes control characters by itself.
#pragma once

#include <string>
#include <string_view>

namespace parity {

// `text` with every control character shown as an escape: C0 other than '\n' and '\t' as \xNN
// (ESC is \x1b), DEL as \x7f, C1 (U+0080..U+009F) as \u0080..\u009f, U+2028/U+2029 (line breaks to
// some terminals) as \u2028/\u2029, and a byte that is not part of valid UTF-8 as \xNN. Everything
// else, printable UTF-8 included, is unchanged.
std::string terminal_safe(std::string_view text);

// The same for text that must stay on one line, a table cell or a quoted name: '\n' and '\t' are
// escaped too, as \n and \t (a tensor named "y\nok" would otherwise start a row of its own).
std::string terminal_safe_inline(std::string_view text);

}  // namespace parity
