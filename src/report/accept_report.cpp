#include "report/accept_report.h"

#include <fmt/format.h>

#include "core/json_io.h"
#include "report/table_text.h"

namespace parity::report {
namespace {

using nlohmann::json;

std::string checks_text(const guard::BackendAcceptance& b) {
  if (!b.run) return "-";
  int passed = 0, total = 0;
  for (const auto* list : {&b.run->checks, &b.task})
    for (const CheckResult& c : *list) passed += c.passed ? 1 : 0, ++total;
  return fmt::format("{}/{}", passed, total);
}

json checks_json(const std::vector<CheckResult>& checks) {
  json out = json::array();
  for (const CheckResult& c : checks)
    out.push_back({{"check", c.check}, {"passed", c.passed}, {"detail", c.detail}});
  return out;
}

}  // namespace

json guard_event_to_json(const GuardEvent& e) {
  json j{{"kind", std::string(to_string(e.kind))}, {"backend", e.backend}, {"message", e.message}};
  if (e.error) j["error"] = error_to_json(*e.error);
  return j;
}

std::string accept_table(const guard::AcceptReport& report) {
  std::string samples;
  for (const auto& s : report.samples) samples += (samples.empty() ? "" : ", ") + s;
  std::string out = fmt::format("parity accept {}: {} on {}\n\n", report.manifest,
                                samples.empty() ? "the manifest's sample" : samples, report.model);
  std::vector<std::vector<std::string>> rows{{"BACKEND", "EP", "RESULT", "TILES", "CHECKS", "TIME"}};
  std::string why;
  for (const auto& b : report.backends) {
    rows.push_back({b.label, b.ep, std::string(to_string(b.status)),
                    b.run ? std::to_string(b.run->tiles) : "-", checks_text(b),
                    b.wall_ms > 0 ? ms_text(b.wall_ms) : "-"});
    if (!b.reason.empty()) why += fmt::format("  {}: {}\n", b.label, b.reason);
    for (const GuardEvent& e : b.events)
      if (e.kind == GuardEvent::Kind::retry_tiled || e.kind == GuardEvent::Kind::preflight_passed)
        why += fmt::format("  {}: {}: {}\n", b.label, to_string(e.kind), e.message);
  }
  out += aligned(rows);
  if (!why.empty()) out += "\n" + why;
  const int code = report.exit_code();
  out += code == 0 ? "\nresult: every backend declared fit passed\n"
                   : "\nresult: the gate fails: a backend declared fit did not pass\n";
  return out;
}

json accept_to_json(const guard::AcceptReport& report) {
  json backends = json::array();
  for (const auto& b : report.backends) {
    json events = json::array();
    for (const GuardEvent& e : b.events) events.push_back(guard_event_to_json(e));
    json j{{"backend", b.label},  {"ep", b.ep},       {"status", std::string(to_string(b.status))},
           {"reason", b.reason},  {"events", events}, {"task_checks", checks_json(b.task)},
           {"wall_ms", b.wall_ms}};
    if (b.run)
      j["run"] = {{"backend", b.run->backend},
                  {"tiles", b.run->tiles},
                  {"tile_budget_pixels", b.run->tile_budget_pixels},
                  {"checks", checks_json(b.run->checks)},
                  {"checks_ms", b.run->checks_ms},
                  {"wall_ms", b.run->wall_ms}};
    backends.push_back(std::move(j));
  }
  return {{"schema", kAcceptSchema},   {"manifest", report.manifest}, {"model", report.model},
          {"samples", report.samples}, {"backends", backends},        {"passed", report.exit_code() == 0}};
}

}  // namespace parity::report
