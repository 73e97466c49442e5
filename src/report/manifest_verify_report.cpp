#include "report/manifest_verify_report.h"

#include <fmt/format.h>

#include "core/json_io.h"
#include "isolate/protocol.h"
#include "report/table_text.h"
#include "sweep/sweep_files.h"

namespace parity::report {
namespace {

using nlohmann::json;
using sweep::VerifyOutcome;

std::string outcome_text(VerifyOutcome o) {
  switch (o) {
    case VerifyOutcome::holds: return "holds";
    case VerifyOutcome::no_longer_holds: return "NO LONGER HOLDS";
    case VerifyOutcome::file_changed: return "FILE CHANGED";
    case VerifyOutcome::error: return "error";
    case VerifyOutcome::now_passes: return "disabled, now passes";
    case VerifyOutcome::still_fails: return "disabled, still fails";
    case VerifyOutcome::not_rerun: return "disabled, not re-run";
  }
  return "error";
}

std::string number_text(const std::optional<double>& v) { return v ? short_number(*v) : "-"; }
std::string cosine_text(const std::optional<double>& v) { return v ? fmt::format("{:.6f}", *v) : "-"; }

// "0 -> 1.014": the evidence's value, then the re-run's ("-" for none).
std::string then_now(const std::string& then, const std::string& now) { return then + " -> " + now; }

json then_json(const std::optional<manifest::Evidence>& e) {
  if (!e) return nullptr;
  return {{"cell", e->cell},
          {"status", e->status},
          {"max_abs", e->max_abs ? json_number(*e->max_abs) : json(nullptr)},
          {"cosine", e->cosine ? json_number(*e->cosine) : json(nullptr)},
          {"ort_version", e->ort_version},
          {"adapter", e->adapter},
          {"date", e->date}};
}

}  // namespace

std::string manifest_verify_table(const sweep::VerifyReport& report) {
  std::string overrides;
  if (!report.ort_lib.empty()) overrides += ", --ort-lib " + report.ort_lib;
  if (!report.ort_web.empty()) overrides += ", --ort-web " + report.ort_web;
  std::string out =
      fmt::format("parity manifest verify {}: {} declarations of {}{}\n\n", report.manifest.string(),
                  report.checks.size(), report.model, overrides.empty() ? ", as recorded" : overrides);
  std::vector<std::vector<std::string>> rows{{"BACKEND", "VARIANT", "OPT", "SIZE", "RESULT",
                                              "MAX_ABS THEN -> NOW", "COSINE THEN -> NOW",
                                              "ORT THEN -> NOW"}};
  std::string why;
  int enabled = 0, broken = 0;
  for (const auto& c : report.checks) {
    const auto& then = c.declaration.evidence;
    const auto* now = c.now ? &*c.now : nullptr;
    rows.push_back({c.declaration.backend, c.variant.empty() ? "-" : c.variant,
                    c.opt_level.empty() ? "-" : c.opt_level, c.size.empty() ? "-" : c.size,
                    outcome_text(c.outcome),
                    then_now(then ? number_text(then->max_abs) : "-", now ? number_text(now->max_abs) : "-"),
                    then_now(then ? cosine_text(then->cosine) : "-", now ? cosine_text(now->cosine) : "-"),
                    then_now(then && !then->ort_version.empty() ? then->ort_version : "-",
                             now && !now->ort_version.empty() ? now->ort_version : "-")});
    if (c.counts()) {
      ++enabled;
      broken += c.outcome != VerifyOutcome::holds;
    }
    if (c.outcome != VerifyOutcome::holds && !c.detail.empty())
      why += "  " + c.declaration.backend + ": " + outcome_text(c.outcome) + ": " + c.detail + "\n";
  }
  out += aligned(rows) + "\n" + why;
  if (!why.empty()) out += "\n";
  out += broken ? fmt::format("result: {} of {} enabled declarations do not hold\n", broken, enabled)
                : fmt::format("result: all {} enabled declarations hold\n", enabled);
  return out;
}

json manifest_verify_to_json(const sweep::VerifyReport& report) {
  json declarations = json::array(), broken = json::array();
  for (const auto& c : report.checks) {
    if (c.counts() &&
        (c.outcome == VerifyOutcome::no_longer_holds || c.outcome == VerifyOutcome::file_changed))
      broken.push_back(c.declaration.backend);
    declarations.push_back({{"backend", c.declaration.backend},
                            {"ep", c.declaration.ep},
                            {"enabled", c.declaration.enabled},
                            {"variant", c.variant},
                            {"file", c.file},
                            {"opt_level", c.opt_level},
                            {"size", c.size},
                            {"outcome", std::string(sweep::to_string(c.outcome))},
                            {"detail", c.detail},
                            {"spec", isolate::spec_to_json(c.spec)},
                            {"then", then_json(c.declaration.evidence)},
                            {"now", c.now ? sweep::cell_to_json(*c.now) : json(nullptr)}});
  }
  return {{"schema", kManifestVerifySchema},
          {"manifest", report.manifest.string()},
          {"model", report.model},
          {"overrides",
           {{"ort_lib", report.ort_lib.empty() ? json(nullptr) : json(report.ort_lib)},
            {"ort_web", report.ort_web.empty() ? json(nullptr) : json(report.ort_web)}}},
          {"all_hold", report.exit_code() == 0},
          {"no_longer_hold", broken},
          {"declarations", declarations}};
}

}  // namespace parity::report
