#include "probe/recurrent_state.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace parity::probe {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// `name` without one trailing marker of a state pair (and the separator before it), or unchanged.
std::string stem(const std::string& name) {
  static constexpr std::array<std::string_view, 8> kMarkers{"next", "prev", "out", "new",
                                                            "old",  "in",   "0",   "n"};
  for (std::string_view m : kMarkers) {
    if (name.size() <= m.size() || name.compare(name.size() - m.size(), m.size(), m) != 0) continue;
    std::string s = name.substr(0, name.size() - m.size());
    if (!s.empty() && (s.back() == '_' || s.back() == '.' || s.back() == '-')) s.pop_back();
    if (!s.empty()) return s;
  }
  return name;
}

bool names_pair(std::string_view output, std::string_view input) {
  const std::string o = lower(output), i = lower(input);
  if (o == i) return true;  // an in-place state (the same name on both sides)
  const bool prefix = o.size() > i.size() ? o.compare(0, i.size(), i) == 0 : i.compare(0, o.size(), o) == 0;
  return prefix || stem(o) == stem(i);
}

}  // namespace

bool is_recurrent_state(std::string_view name, DType dtype, const Shape& shape,
                        const std::vector<FedInput>& inputs) {
  return std::any_of(inputs.begin(), inputs.end(), [&](const FedInput& in) {
    return in.dtype == dtype && in.shape == shape && names_pair(name, in.name);
  });
}

}  // namespace parity::probe
