#include "backend/backend.h"

#include <array>
#include <string>
#include <vector>

#include "backend/ort/ort_backend.h"
#include "backend/ort/ort_providers.h"

namespace parity::backend {
namespace {

// One row per backend family, tried in order. Browser families ("web-*") will go before ORT,
// which claims every name for now: an EP its library lacks fails at append_provider, where the
// library itself can say what it offers.
struct Family {
  std::string_view name;
  bool (*claims)(std::string_view ep);
  BackendFactory::result_type (*make)(const BackendSpec& spec);
};

constexpr std::array<Family, 1> kFamilies{{
    {"ort", [](std::string_view) { return true; },
     [](const BackendSpec& spec) -> Result<std::unique_ptr<Backend>> { return ort::make_ort_backend(spec); }},
}};

}  // namespace

std::vector<std::string> known_ep_names() {
  std::vector<std::string> names;
  for (const auto& ep : ort::known_eps()) names.emplace_back(ep.short_name);
  return names;
}

bool is_known_ep(std::string_view ep) {
  for (const auto& name : known_ep_names())
    if (name == ep) return true;
  return false;
}

Result<std::unique_ptr<Backend>> create_backend(const BackendSpec& spec) {
  const std::string label = spec.label.empty() ? spec.ep : spec.label;
  if (spec.ep.empty()) {
    Error e = make_error(ErrorKind::bad_input, Stage::parse_args, "backend '" + label + "' names no EP",
                         "set an EP such as cpu or webgpu");
    e.backend = label;
    return e;
  }
  std::string known;
  for (const Family& family : kFamilies) {
    if (family.claims(spec.ep)) return family.make(spec);
    known += (known.empty() ? "" : ", ") + std::string(family.name);
  }
  Error e = make_error(ErrorKind::unavailable, Stage::none, "no backend handles EP '" + spec.ep + "'",
                       "backend families built in: " + known);
  e.backend = label;
  return e;
}

}  // namespace parity::backend
