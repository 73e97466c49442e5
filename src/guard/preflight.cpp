#include "guard/preflight.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/file_io.h"
#include "core/utc_time.h"
#include "manifest/manifest.h"
#include "model/onnx_model.h"
#include "probe/input_plan.h"
#include "probe/manifest_setup.h"
#include "probe/precision.h"
#include "probe/probe.h"

namespace parity::guard {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kCacheSchema = "parity.preflight-cache/1";

json read_cache(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return json::object();
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != kCacheSchema || !j.contains("entries") ||
      !j["entries"].is_object())
    return json::object();  // unreadable or another version: start over, it is only a cache
  return j["entries"];
}

}  // namespace

Result<std::vector<NamedTensor>> preflight_sample(const manifest::Manifest& m, const manifest::Declaration& d,
                                                  const fs::path& file, const fs::path& base_dir) {
  if (!m.sweep)
    return make_error(ErrorKind::bad_input, Stage::prepare_inputs,
                      "the manifest records no sweep setup ([sweep]), so there is no sample to check '" +
                          d.backend + "' with",
                      "write the manifest with parity sweep, or set guard.preflight = false");
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(file));
  probe::InputSettings settings = probe::settings_of(
      m.sweep->inputs, [&](const std::string& p) { return manifest::resolve_recorded(p, base_dir); });
  settings.samples = 1;
  if (d.evidence && !d.evidence->size.empty()) {
    static const std::regex form("([^=]+)=([0-9]+)x([0-9]+)");
    std::smatch s;
    if (std::regex_match(d.evidence->size, s, form))
      PARITY_TRY(probe::set_spatial_size(s[1].str(), std::stoll(s[2].str()), std::stoll(s[3].str()), info,
                                         settings));
  }
  PARITY_ASSIGN_OR_RETURN(plan, probe::plan_inputs(info, settings));
  return std::move(plan.samples.front());
}

PreflightVerdict judge_preflight(const std::vector<NamedTensor>& actual,
                                 const std::vector<NamedTensor>& expected, const std::string& precision,
                                 std::string_view arithmetic) {
  probe::ProbeOptions rules;
  rules.judge_as = probe::judging_dtype(precision);
  if (!precision.empty() && precision != "fp32") rules.min_cosine = probe::kVariantMinCosine;
  rules.drift_cosine = probe::variant_drift_cosine(precision);
  PreflightVerdict v{true, ""};
  double worst_abs = 0, worst_cos = 1;
  for (const NamedTensor& e : expected) {
    const NamedTensor* a = nullptr;
    for (const NamedTensor& t : actual)
      if (t.name == e.name) a = &t;
    const Evaluation ev =
        evaluate_output(a, e, probe::tolerance_for(rules, e.name, e.tensor.dtype(), arithmetic));
    if (ev.verdict.verdict == Verdict::mismatch) {
      v.passed = false;
      v.detail = fmt::format("output '{}': {} ({})", e.name, ev.verdict.failed_rule, ev.verdict.detail);
      return v;
    }
    if (ev.comparison) {
      worst_abs = std::max(worst_abs, ev.comparison->max_abs);
      if (ev.comparison->cosine) worst_cos = std::min(worst_cos, *ev.comparison->cosine);
    }
  }
  v.detail = fmt::format("{} output(s) match the reference (max_abs {:.3g}, cosine {:.6f})", expected.size(),
                         worst_abs, worst_cos);
  return v;
}

std::string PreflightCache::key(const manifest::Declaration& d, const std::string& file_sha256,
                                const std::string& runtime_version, const std::string& adapter) {
  return fmt::format("{}|{}|{}|{}|{}|{}", d.backend, d.ep, d.graph_optimization, file_sha256, runtime_version,
                     adapter);
}

std::optional<PreflightVerdict> PreflightCache::find(const std::string& key) const {
  if (dir_.empty()) return std::nullopt;
  const json entries = read_cache(dir_ / "preflight.json");
  if (!entries.contains(key) || !entries[key].is_object()) return std::nullopt;
  const json& e = entries[key];
  if (!e.contains("passed") || !e["passed"].is_boolean()) return std::nullopt;
  return PreflightVerdict{e["passed"].get<bool>(), e.value("detail", "")};
}

void PreflightCache::store(const std::string& key, const PreflightVerdict& verdict) const {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  json entries = read_cache(dir_ / "preflight.json");  // what others wrote since we read it
  entries[key] = {{"passed", verdict.passed}, {"detail", verdict.detail}, {"checked", utc_now()}};
  const json doc{{"schema", kCacheSchema}, {"entries", entries}};
  (void)write_text_file(dir_ / "preflight.json", doc.dump(2) + "\n");
}

fs::path default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return fs::path(xdg) / "parity";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return fs::path(home) / ".cache" / "parity";
  return {};
}

std::string adapter_shortfall(const manifest::Declaration& d,
                              const std::vector<std::pair<std::string, std::string>>& adapter) {
  if (d.largest_weight_bytes == 0) return "";
  auto limit = [&](std::string_view name) -> uint64_t {
    for (const auto& [key, value] : adapter)
      if (key == "adapter.limits." + std::string(name)) {
        uint64_t v = 0;
        std::from_chars(value.data(), value.data() + value.size(), v);
        return v;
      }
    return 0;
  };
  auto mib = [](uint64_t bytes) { return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1 << 20)); };
  for (std::string_view name : {"maxBufferSize", "maxStorageBufferBindingSize"}) {
    if (name == "maxStorageBufferBindingSize" && d.ep != "web-jsep") continue;
    if (const uint64_t have = limit(name); have > 0 && d.largest_weight_bytes > have)
      return fmt::format("the adapter's {} is {}, below the {} the file's largest weight needs", name,
                         mib(have), mib(d.largest_weight_bytes));
  }
  return "";
}

}  // namespace parity::guard
