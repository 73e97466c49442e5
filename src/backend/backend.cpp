#include "backend/backend.h"

#include <array>
#include <string>
#include <vector>

#include "backend/browser/ort_web_dist.h"
#include "backend/browser/web_backend.h"
#include "backend/ort/ort_backend.h"
#include "backend/ort/ort_providers.h"

namespace parity::backend {
namespace {

// One row per backend family, tried in order. ORT goes last and claims every remaining name: an
// EP its library lacks fails at append_provider, where the library itself can say what it offers.
struct Family {
  std::string_view name;
  bool (*claims)(std::string_view ep);
  BackendFactory::result_type (*make)(const BackendSpec& spec);
};

constexpr std::array<Family, 2> kFamilies{{
    {"web", [](std::string_view ep) { return is_web_backend(ep); },
     [](const BackendSpec& spec) -> Result<std::unique_ptr<Backend>> {
       return browser::make_standalone_web_backend(spec);
     }},
    {"ort", [](std::string_view) { return true; },
     [](const BackendSpec& spec) -> Result<std::unique_ptr<Backend>> { return ort::make_ort_backend(spec); }},
}};

}  // namespace

bool is_web_backend(std::string_view ep) { return browser::web_path_for(ep).has_value(); }

bool runs_on_cpu_kernels(std::string_view ep) { return ep == "cpu" || ep == "web-wasm"; }

std::string_view reduced_arithmetic(const BackendSpec& spec) {
  if (spec.ep != "cuda") return {};
  for (const auto& [key, value] : spec.provider_options)
    if (key == "use_tf32") return value == "0" ? "" : "tf32";
  return "tf32";
}

std::vector<std::string> known_ep_names() {
  std::vector<std::string> names;
  for (const auto& ep : ort::known_eps()) names.emplace_back(ep.short_name);
  for (const char* web : {"web-wasm", "web-jsep", "web-webgpu"}) names.emplace_back(web);
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
