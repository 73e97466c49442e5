#include "core/terminal_colour.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <utility>

namespace parity {
namespace {

constexpr const char* kGreen = "\033[32m";
constexpr const char* kRed = "\033[1;31m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kDim = "\033[2m";
constexpr const char* kReset = "\033[0m";

constexpr std::array<std::pair<std::string_view, const char*>, 17> kWords{{
    {"ok", kGreen},
    {"match", kGreen},
    {"passed", kGreen},
    {"clean-error", kGreen},
    {"mismatch", kRed},
    {"failed", kRed},
    {"crashed", kRed},
    {"hung", kRed},
    {"timeout", kRed},
    {"oom", kRed},
    {"error", kRed},
    {"wrong-output", kRed},
    {"inconclusive", kYellow},
    {"flaky", kYellow},
    {"unfit", kYellow},
    {"skipped", kDim},
    {"unaffected", kDim},
}};

bool is_cell_start(std::string_view text, std::size_t at) {
  return at == 0 || text[at - 1] == '\n' || (at >= 2 && text[at - 1] == ' ' && text[at - 2] == ' ');
}

bool is_cell_end(std::string_view text, std::size_t at) {
  if (at == text.size() || text[at] == '\n') return true;
  return text.substr(at, 2) == "  " || text.substr(at, 2) == " (";
}

}  // namespace

bool colour_wanted(std::FILE* stream) {
  if (const char* no = std::getenv("NO_COLOR"); no && *no) return false;
  if (const char* term = std::getenv("TERM"); term && std::string_view(term) == "dumb") return false;
  return isatty(fileno(stream)) == 1;
}

std::string colour_verdicts(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_cell_start(text, i)) {
      bool painted = false;
      for (const auto& [word, colour] : kWords)
        if (text.substr(i, word.size()) == word && is_cell_end(text, i + word.size())) {
          out += colour;
          out += word;
          out += kReset;
          i += word.size();
          painted = true;
          break;
        }
      if (painted) continue;
    }
    out += text[i++];
  }
  return out;
}

}  // namespace parity
