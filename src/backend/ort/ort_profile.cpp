#include "backend/ort/ort_profile.h"

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace parity::backend::ort {
namespace {

std::string node_name(std::string name) {
  static constexpr std::array<std::string_view, 3> kSuffixes{"_kernel_time", "_fence_before", "_fence_after"};
  for (std::string_view suffix : kSuffixes)
    if (name.size() > suffix.size() && std::string_view(name).ends_with(suffix)) {
      name.resize(name.size() - suffix.size());
      break;
    }
  return name;
}

Error profile_error(std::string message) {
  return make_error(ErrorKind::error, Stage::read_output, std::move(message));
}

}  // namespace

Result<NodePlacement> profiled_placement(std::string_view json_text) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return profile_error("ORT profile is not valid JSON");
  // Chrome trace format: either a bare event array or {"traceEvents": [...]}.
  const nlohmann::json* events = &doc;
  if (doc.is_object() && doc.contains("traceEvents")) events = &doc["traceEvents"];
  if (!events->is_array()) return profile_error("ORT profile holds no event array");

  NodePlacement placement;
  for (const auto& event : *events) {
    if (!event.is_object()) continue;
    const auto cat = event.find("cat");
    const auto name = event.find("name");
    const auto args = event.find("args");
    if (cat == event.end() || !cat->is_string() || *cat != "Node") continue;
    if (name == event.end() || !name->is_string() || args == event.end() || !args->is_object()) continue;
    const auto provider = args->find("provider");
    if (provider == args->end() || !provider->is_string()) continue;
    const auto op = args->find("op_name");
    placement[provider->get<std::string>()][node_name(name->get<std::string>())] =
        op != args->end() && op->is_string() ? op->get<std::string>() : "";
  }
  return placement;
}

NodeCounts count_nodes(const NodePlacement& placement) {
  NodeCounts counts;
  for (const auto& [provider, names] : placement) counts[provider] = static_cast<int64_t>(names.size());
  return counts;
}

Result<NodeCounts> count_profiled_nodes(std::string_view json_text) {
  PARITY_ASSIGN_OR_RETURN(placement, profiled_placement(json_text));
  return count_nodes(placement);
}

Result<NodePlacement> read_profile_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return profile_error("cannot read ORT profile " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return profiled_placement(text.str());
}

}  // namespace parity::backend::ort
