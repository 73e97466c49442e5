#include "report/accept_report.h"

#include <fmt/format.h>

#include "core/json_io.h"
#include "parity/metrics.h"
#include "report/table_text.h"
#include "report/tensor_picture.h"

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

std::string tone_of(guard::AcceptStatus s) {
  switch (s) {
    case guard::AcceptStatus::passed: return "match";
    case guard::AcceptStatus::failed: return "mismatch";
    case guard::AcceptStatus::unfit: return "error";
  }
  return "";
}

std::string samples_text(const guard::AcceptReport& report) {
  std::string samples;
  for (const auto& s : report.samples) samples += (samples.empty() ? "" : ", ") + s;
  return samples.empty() ? "the manifest's sample" : samples;
}

// The finite range of a tensor, for drawing every backend's output on one scale.
std::pair<double, double> value_range(const Tensor& t) {
  const TensorStats s = compute_stats(t);  // NaN min/max when no element is finite
  return s.max >= s.min ? std::pair{s.min, s.max} : std::pair{0.0, 1.0};
}

Section pictures_section(const guard::AcceptReport& report) {
  Section s{"Outputs", {}, {}};
  std::map<std::string, std::pair<double, double>> ranges;  // per output name, from the first backend
  std::map<std::string, Gallery> galleries;
  std::vector<std::string> order;
  for (const auto& b : report.backends) {
    if (!b.run) continue;
    for (const auto& out : b.run->outputs) {
      if (!picture_layout(out.tensor.shape())) continue;
      if (!ranges.count(out.name)) ranges[out.name] = value_range(out.tensor), order.push_back(out.name);
      const auto [lo, hi] = ranges[out.name];
      if (auto p = draw_tensor(out.tensor, lo, hi)) {
        p->caption = fmt::format("{} ({}): {} {}", b.label, to_string(b.status), out.name,
                                 shape_to_string(out.tensor.shape()));
        galleries[out.name].pictures.push_back(std::move(*p));
      }
    }
  }
  for (const auto& name : order) {
    s.blocks.push_back(
        Paragraph{fmt::format("{}: values {:.4g}..{:.4g} (the first backend's range) mapped to "
                              "black..white",
                              name, ranges[name].first, ranges[name].second),
                  "note"});
    s.blocks.push_back(std::move(galleries[name]));
  }
  return s;
}

}  // namespace

Document accept_document(const guard::AcceptReport& report) {
  Table results{"results", {"backend", "EP", "result", "served by", "tiles", "checks", "time"}, {}};
  for (const auto& b : report.backends)
    results.rows.push_back({{{b.label},
                             {b.ep},
                             Cell(std::string(to_string(b.status)), tone_of(b.status), b.reason),
                             {b.run ? b.run->backend : "-"},
                             {b.run ? std::to_string(b.run->tiles) : "-"},
                             {checks_text(b)},
                             {b.wall_ms > 0 ? ms_text(b.wall_ms) : "-"}},
                            {{"backend", b.label}}});
  Document doc{"parity accept " + std::filesystem::path(report.manifest).filename().string(),
               fmt::format("{} on {}; manifest {}", samples_text(report), report.model, report.manifest),
               {{"Backends", {}, {std::move(results)}}}};
  for (const auto& b : report.backends) {
    Section s{"Backend " + b.label, {{"backend", b.label}}, {}};
    Table checks{"checks", {"check", "result", "measured"}, {}};
    if (b.run)
      for (const auto* list : {&b.run->checks, &b.task})
        for (const CheckResult& c : *list)
          checks.rows.push_back({{{c.check},
                                  Cell(c.passed ? "passed" : "failed", c.passed ? "match" : "mismatch"),
                                  {c.detail}}});
    if (!checks.rows.empty()) s.blocks.push_back(std::move(checks));
    BulletList events;
    for (const GuardEvent& e : b.events)
      events.items.push_back(fmt::format("{}: {}{}", to_string(e.kind), e.message,
                                         e.error ? " (" + e.error->describe() + ")" : ""));
    if (!events.items.empty()) {
      s.blocks.push_back(Subheading{"What decided it"});
      s.blocks.push_back(std::move(events));
    }
    doc.sections.push_back(std::move(s));
  }
  doc.sections.push_back(pictures_section(report));
  return doc;
}

json guard_event_to_json(const GuardEvent& e) {
  json j{{"kind", std::string(to_string(e.kind))}, {"backend", e.backend}, {"message", e.message}};
  if (e.error) j["error"] = error_to_json(*e.error);
  return j;
}

std::string accept_table(const guard::AcceptReport& report) {
  std::string out =
      fmt::format("parity accept {}: {} on {}\n\n", report.manifest, samples_text(report), report.model);
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
