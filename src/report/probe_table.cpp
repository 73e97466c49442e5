#include "report/probe_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/backend.h"
#include "core/terminal_text.h"
#include "report/table_text.h"

namespace parity::report {
namespace {

// Which of two outputs a row should show: a mismatch before an inconclusive one before a match,
// then the larger error; the earlier one on a tie.
bool shows_more(const probe::OutputReport& o, const probe::OutputReport& than) {
  auto rank = [](const probe::OutputReport& x) {
    return x.verdict == Verdict::mismatch ? 2 : x.inconclusive.empty() ? 0 : 1;
  };
  if (rank(o) != rank(than)) return rank(o) > rank(than);
  return o.comparison && than.comparison && o.comparison->max_abs > than.comparison->max_abs;
}

// The output to show for a backend: the first mismatch, else the first inconclusive one, else the
// one with the largest error.
const probe::OutputReport* worst_output(const probe::BackendReport& b) {
  const probe::OutputReport* worst = nullptr;
  for (const auto& o : b.outputs)
    if (!worst || shows_more(o, *worst)) worst = &o;
  return worst;
}

// The output the reference row shows: the one the worst of the other rows shows (worst_output
// ranked across rows), so the reference's statistics stand beside it; the reference's own first
// output when no other row has one.
const probe::OutputReport* reference_output(const probe::ProbeReport& r, const probe::BackendReport& ref) {
  const probe::OutputReport* shown = nullptr;
  for (const auto& b : r.backends) {
    if (b.is_reference || b.error) continue;
    const auto* o = worst_output(b);
    if (o && (!shown || shows_more(*o, *shown))) shown = o;
  }
  if (shown)
    for (const auto& o : ref.outputs)
      if (o.name == shown->name) return &o;
  return worst_output(ref);
}

// A name quoted in a detail line: on one line and escaped, in full (the table cell is shortened).
std::string q(const std::string& name) { return "'" + terminal_safe_inline(name) + "'"; }

// A mismatch of a handful of elements in an otherwise identical tensor: at most 0.1% of them
// (at least one), with cosine above 0.9999, and some elements that do agree (a one-element output
// that is off is not a near-tie among others: Silero VAD's speech probability on webgpu).
bool few_elements_off(const probe::OutputReport& o) {
  if (o.failed_rule != "allclose" || !o.comparison || !o.comparison->cosine) return false;
  const auto& c = *o.comparison;
  const int64_t n = c.finite_pairs;
  return c.elements_over_tol > 0 && c.elements_over_tol < n &&
         c.elements_over_tol <= std::max<int64_t>(1, n / 1000) && *c.cosine > 0.9999;
}

std::string evidence(const probe::ProbeReport& r, const probe::OutputReport& o) {
  const std::string& noise_label = r.noise_from;
  // With several samples each row shows its worst; the reference row shows the one the worst row
  // shows (probe.cpp), and every row names it.
  std::string s = r.samples > 1 ? fmt::format("sample {}: ", o.worst_sample) : std::string();
  s += fmt::format("mean {} (ref {})", short_number(o.stats.mean), short_number(o.reference_stats.mean));
  // A zero fraction that differs on a matching output is values within tolerance of 0 (CPU kernels
  // flush tiny results to exact 0, GPUs often do not): shown only where it can mean a failure.
  const bool zeros_matter = o.verdict == Verdict::mismatch || !o.inconclusive.empty() ||
                            o.stats.zero_frac == 1 || o.reference_stats.zero_frac == 1 ||
                            o.stats.zero_frac == o.reference_stats.zero_frac;
  if (zeros_matter && (o.stats.zero_frac > 0 || o.reference_stats.zero_frac > 0))
    s += fmt::format(", zeros {:.1f}% (ref {:.1f}%)", 100 * o.stats.zero_frac,
                     100 * o.reference_stats.zero_frac);
  if (o.stats.nan_frac > 0) s += fmt::format(", NaN {:.1f}%", 100 * o.stats.nan_frac);
  if (o.comparison && o.comparison->psnr) s += fmt::format(", PSNR {} dB", short_number(*o.comparison->psnr));
  if (o.comparison && o.comparison->top1_agree && o.inconclusive.empty())  // argmax of a constant is index 0
    s += fmt::format(", top1 {:.0f}%", 100 * *o.comparison->top1_agree);
  if (o.comparison && o.noise_max_abs) {
    if (*o.noise_max_abs > 0)
      s += fmt::format(", {}x the {} spread ({})", short_number(o.comparison->max_abs / *o.noise_max_abs),
                       noise_label, short_number(*o.noise_max_abs));
    else
      s += fmt::format(", {} agrees exactly", noise_label);
  }
  return s;
}

}  // namespace

std::string probe_inputs_text(const probe::ProbeReport& r) {
  std::string inputs;
  for (const auto& in : r.inputs) {
    if (!inputs.empty()) inputs += ", ";
    inputs += fmt::format("{} {}{}", terminal_safe_inline(in.info.name), dtype_name(in.info.dtype),
                          shape_to_string(in.shape));
    if (in.source != "random") inputs += " from " + in.source.substr(in.source.find(':') + 1);
  }
  return inputs;
}

namespace {

std::string header(const probe::ProbeReport& r) {
  const std::string reference =
      r.reference_settings.empty() ? r.reference : fmt::format("{} ({})", r.reference, r.reference_settings);
  return fmt::format("parity probe {}\n  inputs: {}\n  reference: {}, {} sample{}, seed {}\n\n",
                     r.model.path.filename().string(), probe_inputs_text(r), reference, r.samples,
                     r.samples == 1 ? "" : "s", r.seed);
}

// The lines under the table for one output: why it failed, or why it proves nothing.
void output_details(const probe::BackendReport& b, const probe::OutputReport& o,
                    std::vector<std::string>& details) {
  if (o.verdict == Verdict::mismatch) {
    details.push_back(fmt::format("{}: output {} fails rule '{}' (sample {}): {}", b.name, q(o.name),
                                  o.failed_rule, o.worst_sample, o.detail));
    if (few_elements_off(o))
      details.push_back(fmt::format(
          "{}: only {} element(s) of {} are off and the rest agree (cosine {}): where the model "
          "selects (local maxima, top-k, thresholds), a near-tie can flip on rounding noise; "
          "'parity bisect' tells such a flip from a miscompute",
          b.name, o.comparison->elements_over_tol, q(o.name), fmt::format("{:.6f}", *o.comparison->cosine)));
    if (!o.reference_spread.empty())
      details.push_back(fmt::format("{}: output {} {}", b.name, q(o.name), o.reference_spread));
  } else if (!o.inconclusive.empty()) {
    details.push_back(fmt::format(
        "{}: output {} is inconclusive: {}, so a backend that is wrong in the same way would match; "
        "hint: feed a real input (--input), widen --range, or judge another output",
        b.name, q(o.name), o.inconclusive));
  }
}

// One table row for a backend, and its detail lines.
std::vector<std::string> backend_row(const probe::ProbeReport& r, const probe::BackendReport& b,
                                     std::vector<std::string>& details) {
  std::string status(probe::to_string(b.status));
  if (b.is_reference) status += " (ref)";
  if (b.is_noise) status += " (noise)";
  std::vector<std::string> row{b.name, status, b.ort_version.empty() ? "-" : b.ort_version,
                               nodes_text(b.ep, b.nodes_on_backend, b.nodes_on_cpu),
                               b.error ? "-" : ms_text(b.create_ms + b.run_ms)};
  if (b.error) {
    row.insert(row.end(),
               {"-", "-", "-", fmt::format("{}: {}", to_string(b.error->stage), to_string(b.error->kind))});
    details.push_back(b.error->describe());  // starts with the backend's name
  } else if (const auto* o = b.is_reference ? reference_output(r, b) : worst_output(b)) {
    const bool has_cmp = o->comparison.has_value();
    row.push_back(cell_text(o->name));
    row.push_back(has_cmp ? short_number(o->comparison->max_abs) : "-");
    row.push_back(has_cmp && o->comparison->cosine ? fmt::format("{:.6f}", *o->comparison->cosine) : "-");
    row.push_back(evidence(r, *o));
    for (const auto& out_report : b.outputs) output_details(b, out_report, details);
  } else {
    row.insert(row.end(), {"-", "-", "-", "no outputs"});
  }
  if (!b.adapter.empty()) details.push_back(fmt::format("{}: adapter {}", b.name, b.adapter));
  if (backend::is_web_backend(b.ep))  // their notes are about the path that really ran
    for (const auto& note : b.notes) details.push_back(fmt::format("{}: {}", b.name, note));
  return row;
}

std::string result_line(const probe::ProbeReport& r) {
  if (r.interrupted)
    return fmt::format("\nresult: interrupted: {} of {} backend runs finished{}; no verdict\n",
                       r.finished.size(), r.finished.size() + r.unfinished.size(),
                       r.finished.empty() ? "" : " (" + fmt::format("{}", fmt::join(r.finished, ", ")) + ")");
  const auto count = [&](auto pred) { return std::count_if(r.backends.begin(), r.backends.end(), pred); };
  const auto failing = count([](const auto& b) {
    return !b.is_noise && b.status != probe::BackendStatus::ok &&
           b.status != probe::BackendStatus::inconclusive;
  });
  const auto inconclusive =
      count([](const auto& b) { return b.status == probe::BackendStatus::inconclusive; });
  if (failing == 0 && inconclusive == 0)
    return fmt::format("\nresult: all {} backends agree with the reference\n", r.backends.size());
  if (failing == 0)
    return fmt::format("\nresult: {} of {} backends are inconclusive: {}\n", inconclusive, r.backends.size(),
                       r.reference_spread.empty() ? "the reference gives nothing to compare"
                                                  : "the reference's own optimizer moves its result");
  return fmt::format("\nresult: {} of {} backends are not ok{}\n", failing, r.backends.size(),
                     inconclusive ? fmt::format(", {} inconclusive", inconclusive) : "");
}

}  // namespace

std::string probe_table(const probe::ProbeReport& r) {
  std::vector<std::vector<std::string>> rows{
      {"BACKEND", "STATUS", "ORT", "NODES EP/CPU", "TIME", "WORST OUTPUT", "MAX_ABS", "COSINE", "EVIDENCE"}};
  std::vector<std::string> details;
  for (const auto& b : r.backends) rows.push_back(backend_row(r, b, details));
  if (!r.reference_spread.empty()) details.push_back(fmt::format("{}: {}", r.reference, r.reference_spread));
  std::string out = header(r) + aligned(rows);
  if (!details.empty()) {
    out += "\n";
    for (const auto& d : details) out += "  " + d + "\n";
  }
  return out + result_line(r);
}

}  // namespace parity::report
