#include "report/probe_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/backend.h"

namespace parity::report {
namespace {

std::string ms_text(double ms) {
  return ms >= 1000 ? fmt::format("{:.1f} s", ms / 1000) : fmt::format("{:.0f} ms", ms);
}

std::string nodes_text(const probe::BackendReport& b) {
  if (b.nodes_on_backend < 0) return "-";
  if (backend::runs_on_cpu_kernels(b.ep)) return std::to_string(b.nodes_on_backend);  // CPU is the EP
  return fmt::format("{}/{}", b.nodes_on_backend, b.nodes_on_cpu < 0 ? 0 : b.nodes_on_cpu);
}

// The output to show for a backend: the first mismatch, else the one with the largest error.
const probe::OutputReport* worst_output(const probe::BackendReport& b) {
  const probe::OutputReport* worst = nullptr;
  for (const auto& o : b.outputs) {
    if (!worst)
      worst = &o;
    else if (o.verdict == Verdict::mismatch && worst->verdict != Verdict::mismatch)
      worst = &o;
    else if (o.verdict == worst->verdict && o.comparison && worst->comparison &&
             o.comparison->max_abs > worst->comparison->max_abs)
      worst = &o;
  }
  return worst;
}

std::string evidence(const probe::OutputReport& o) {
  std::string s =
      fmt::format("mean {} (ref {})", short_number(o.stats.mean), short_number(o.reference_stats.mean));
  if (o.stats.zero_frac > 0 || o.reference_stats.zero_frac > 0)
    s += fmt::format(", zeros {:.1f}% (ref {:.1f}%)", 100 * o.stats.zero_frac,
                     100 * o.reference_stats.zero_frac);
  if (o.stats.nan_frac > 0) s += fmt::format(", NaN {:.1f}%", 100 * o.stats.nan_frac);
  if (o.comparison && o.comparison->psnr) s += fmt::format(", PSNR {} dB", short_number(*o.comparison->psnr));
  if (o.comparison && o.comparison->top1_agree)
    s += fmt::format(", top1 {:.0f}%", 100 * *o.comparison->top1_agree);
  return s;
}

}  // namespace

std::string short_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e5) return fmt::format("{:.4g}", v);
  return fmt::format("{:.2e}", v);
}

std::string probe_table(const probe::ProbeReport& r) {
  std::string out;
  std::string inputs;
  for (const auto& in : r.inputs) {
    if (!inputs.empty()) inputs += ", ";
    inputs += fmt::format("{} {}{}", in.info.name, dtype_name(in.info.dtype), shape_to_string(in.shape));
    if (in.source != "random") inputs += " from " + in.source.substr(in.source.find(':') + 1);
  }
  out += fmt::format("parity probe {}\n  inputs: {}\n  reference: {}, {} sample{}, seed {}\n\n",
                     r.model.path.filename().string(), inputs, r.reference, r.samples,
                     r.samples == 1 ? "" : "s", r.seed);

  std::vector<std::vector<std::string>> rows{
      {"BACKEND", "STATUS", "ORT", "NODES EP/CPU", "TIME", "WORST OUTPUT", "MAX_ABS", "COSINE", "EVIDENCE"}};
  std::vector<std::string> details;
  for (const auto& b : r.backends) {
    std::string status(probe::to_string(b.status));
    if (b.is_reference) status += " (ref)";
    std::vector<std::string> row{b.name, status, b.ort_version.empty() ? "-" : b.ort_version, nodes_text(b),
                                 b.error ? "-" : ms_text(b.create_ms + b.run_ms)};
    if (b.error) {
      row.insert(row.end(),
                 {"-", "-", "-", fmt::format("{}: {}", to_string(b.error->stage), to_string(b.error->kind))});
      details.push_back(b.error->describe());  // starts with the backend's name
    } else if (const auto* o = worst_output(b)) {
      const bool has_cmp = o->comparison.has_value();
      row.push_back(o->name);
      row.push_back(has_cmp ? short_number(o->comparison->max_abs) : "-");
      row.push_back(has_cmp && o->comparison->cosine ? fmt::format("{:.6f}", *o->comparison->cosine) : "-");
      row.push_back(evidence(*o));
      for (const auto& out_report : b.outputs)
        if (out_report.verdict == Verdict::mismatch)
          details.push_back(fmt::format("{}: output '{}' fails rule '{}' (sample {}): {}", b.name,
                                        out_report.name, out_report.failed_rule, out_report.worst_sample,
                                        out_report.detail));
    } else {
      row.insert(row.end(), {"-", "-", "-", "no outputs"});
    }
    if (!b.adapter.empty()) details.push_back(fmt::format("{}: adapter {}", b.name, b.adapter));
    if (backend::is_web_backend(b.ep))  // their notes are about the path that really ran
      for (const auto& note : b.notes) details.push_back(fmt::format("{}: {}", b.name, note));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 == row.size() ? row[c] : fmt::format("{:<{}}  ", row[c], width[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!details.empty()) {
    out += "\n";
    for (const auto& d : details) out += "  " + d + "\n";
  }
  const auto failing = std::count_if(r.backends.begin(), r.backends.end(),
                                     [](const auto& b) { return b.status != probe::BackendStatus::ok; });
  out += failing == 0 ? fmt::format("\nresult: all {} backends agree with the reference\n", r.backends.size())
                      : fmt::format("\nresult: {} of {} backends are not ok\n", failing, r.backends.size());
  return out;
}

}  // namespace parity::report
