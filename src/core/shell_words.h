// core/shell_words.h: command lines a user can paste. Repro READMEs, chaos repro lines and JSON
// reports print the commands that reproduce a finding; an unquoted path with a space or a '$'
// would run something else.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace parity {

// `s` as one POSIX shell word: unchanged when it holds only characters no shell treats specially
// (letters, digits and _@%+=:,./-), else in single quotes with each ' written as '\''.
// `always` quotes every word (chaos repro lines quote every --fault value that way).
std::string shell_quote(std::string_view s, bool always = false);

// The words joined by spaces, each through shell_quote.
std::string shell_join(const std::vector<std::string>& words);

}  // namespace parity
