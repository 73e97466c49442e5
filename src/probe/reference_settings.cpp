#include "probe/reference_settings.h"

#include <algorithm>

namespace parity::probe {
namespace {

bool sets(const backend::BackendSpec& spec, const std::string& key) {
  return std::any_of(spec.session_config.begin(), spec.session_config.end(),
                     [&](const auto& kv) { return kv.first == key && kv.second == "1"; });
}

}  // namespace

const std::vector<std::string>& lossy_rewrite_keys() {
  static const std::vector<std::string> keys{"session.disable_quant_qdq",
                                             "session.disable_double_qdq_remover"};
  return keys;
}

void turn_lossy_rewrites_off(backend::BackendSpec& spec) {
  for (const auto& key : lossy_rewrite_keys())
    if (!sets(spec, key)) spec.session_config.emplace_back(key, "1");
}

bool lossy_rewrites_off(const backend::BackendSpec& spec) {
  if (spec.opt_level == "disabled") return true;
  const auto& keys = lossy_rewrite_keys();
  return std::all_of(keys.begin(), keys.end(), [&](const auto& key) { return sets(spec, key); });
}

std::string lossy_rewrites_note(const backend::BackendSpec& spec) {
  if (spec.opt_level == "disabled" || !lossy_rewrites_off(spec)) return "";
  std::string set;
  for (const auto& key : lossy_rewrite_keys()) set += (set.empty() ? "" : ", ") + key + "=1";
  return "QDQ fusions off: " + set;
}

}  // namespace parity::probe
