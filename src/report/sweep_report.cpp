#include "report/sweep_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "probe/input_plan.h"
#include "report/svg_chart.h"
#include "report/table_text.h"
#include "sweep/sweep_files.h"

namespace parity::report {
namespace {

using nlohmann::json;

std::string optional_text(const std::optional<double>& v) { return v ? short_number(*v) : "-"; }

// "int8 at opt disabled, x=32x32: mismatch (...)"
std::vector<std::string> findings(const sweep::BackendLadder& l,
                                  const std::vector<sweep::CellResult>& results) {
  std::vector<std::string> out;
  for (std::size_t k : l.failing_cells)
    for (const auto& r : results)
      if (r.index == k)
        out.push_back(r.variant + " at opt " + r.opt_level + (r.size.empty() ? "" : ", " + r.size) + ": " +
                      sweep::describe_outcome(r));
  return out;
}

std::string ladder_line(const sweep::BackendLadder& l, const std::vector<sweep::CellResult>& results) {
  std::string s = l.backend + ": ";
  if (l.smallest_correct.empty()) {
    s += "no variant is correct in every cell of any opt level";
  } else {
    std::string levels;
    for (const auto& o : l.correct_opt_levels) levels += (levels.empty() ? "" : ", ") + o;
    // The precision is said where the variant's name does not already say it ("small (uint8, ...)").
    const std::string precision = l.smallest_correct.rfind(l.smallest_correct_precision, 0) == 0
                                      ? ""
                                      : l.smallest_correct_precision + ", ";
    s += fmt::format("smallest correct variant {} ({}{}), at opt {}", l.smallest_correct, precision,
                     probe::describe_bytes(l.smallest_correct_bytes), levels);
  }
  if (l.missing_cells) s += fmt::format(" ({} cells not run yet)", l.missing_cells);
  s += "\n";
  for (const auto& f : findings(l, results)) s += "    " + f + "\n";
  return s;
}

std::string size_text(const std::string& input, const std::optional<sweep::SearchSize>& s) {
  return s ? fmt::format("{}={}x{}", input, s->height, s->width) : "-";
}

std::string memory_text(uint64_t bytes) { return bytes ? probe::describe_bytes(bytes) : "-"; }

// The cliff of one size-search cell, in a few lines: the boundary, the band, the budget.
std::string cliff_lines(const sweep::SweepPlan& plan, const sweep::CellResult& r) {
  const sweep::CliffResult& c = *r.cliff;
  const std::string& in = plan.size_search->input;
  std::string s = fmt::format("{} {} opt {}: ", r.backend, r.variant, r.opt_level);
  if (c.reached_max) {
    s += fmt::format("correct up to --size-max, {} (no cliff below it)", size_text(in, c.largest_correct));
  } else if (!c.largest_correct) {
    s += "not correct at any size tried, down to " + size_text(in, c.first_failing);
  } else {
    s += fmt::format("largest correct {}, first failing {}", size_text(in, c.largest_correct),
                     size_text(in, c.first_failing));
  }
  s += fmt::format(" ({} sizes tried)\n", c.trials.size());
  for (const auto& t : c.trials)
    if (c.first_failing && t.size.k == c.first_failing->k)
      s += "    at " + size_text(in, t.size) + ": " + t.detail + "\n";
  if (c.band_low)
    s += fmt::format("    partly wrong from {} to {}; wrong all over above\n", size_text(in, c.band_low),
                     size_text(in, c.band_high));
  if (c.budget)
    s += fmt::format("    suggested budget {} ({:.0f}% of pixels below the largest correct size)\n",
                     size_text(in, c.budget), plan.size_search->margin * 100);
  return s;
}

std::string tone_of(probe::BackendStatus s) {
  switch (s) {
    case probe::BackendStatus::ok: return "match";
    case probe::BackendStatus::mismatch: return "mismatch";
    case probe::BackendStatus::inconclusive: return "inconclusive";
    default: return "error";
  }
}

std::string outcome_colour(sweep::SizeOutcome o) {
  switch (o) {
    case sweep::SizeOutcome::correct: return "#009E73";
    case sweep::SizeOutcome::partly_wrong: return "#E69F00";
    case sweep::SizeOutcome::wrong: return "#D55E00";
    case sweep::SizeOutcome::failed: return "#CC79A7";
  }
  return "#555555";
}

double pixels(const sweep::SearchSize& s) { return static_cast<double>(s.height * s.width); }

Section matrix_section(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results) {
  const std::size_t sizes = std::max<std::size_t>(plan.sizes.size(), 1);
  Table t{"matrix", {"backend", "opt"}, {}};
  for (const auto& v : plan.variants)
    for (std::size_t z = 0; z < sizes; ++z)
      t.columns.push_back(plan.sizes.empty() ? v.name : v.name + " " + plan.sizes[z].label());
  for (std::size_t b = 0; b < plan.backends.size(); ++b)
    for (std::size_t o = 0; o < plan.opt_levels.size(); ++o) {
      Row row{{{plan.backends[b].label}, {plan.opt_levels[o]}}, {{"backend", plan.backends[b].label}}, true};
      for (std::size_t v = 0; v < plan.variants.size(); ++v)
        for (std::size_t z = 0; z < sizes; ++z) {
          const std::size_t k = sweep::cell_index(plan, b, v, o, z);
          const auto it =
              std::find_if(results.begin(), results.end(), [&](const auto& r) { return r.index == k; });
          if (it == results.end()) {
            row.cells.push_back(Cell("not run").with_data({{"cell", std::to_string(k)}}));
            continue;
          }
          std::string detail =
              it->error ? it->error->message.substr(0, 160)
                        : fmt::format("max_abs {}{}", optional_text(it->max_abs),
                                      it->cosine ? fmt::format(", cosine {:.6f}", *it->cosine) : "");
          if (it->cliff && !it->size.empty()) detail += "; largest correct " + it->size;
          row.cells.push_back(Cell(std::string(probe::to_string(it->status)), tone_of(it->status), detail)
                                  .with_data({{"cell", std::to_string(k)}}));
        }
      t.rows.push_back(std::move(row));
    }
  return {
      "Matrix",
      {},
      {Paragraph{
           "each cell is the backend running the variant at the opt level and size, judged against the fp32 "
           "model on " +
               plan.reference.label + " at the same size",
           "note"},
       std::move(t)}};
}

Section cliff_section(const sweep::SweepPlan& plan, const sweep::CellResult& r) {
  const sweep::CliffResult& c = *r.cliff;
  const std::string& in = plan.size_search->input;
  std::vector<XyPoint> points;
  Table trials{"trials", {"size", "pixels", "outcome", "status", "max_abs", "run", "detail"}, {}};
  std::vector<sweep::SizeTrial> by_size = c.trials;  // the table reads by size; the search ran out of order
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const auto& a, const auto& b) { return pixels(a.size) < pixels(b.size); });
  for (const auto& t : by_size) {
    // A size that failed to run has no error to draw: it sits at the top of the chart.
    points.push_back({pixels(t.size),
                      t.outcome == sweep::SizeOutcome::failed ? HUGE_VAL : t.max_abs.value_or(std::nan("")),
                      outcome_colour(t.outcome), size_text(in, t.size) + ": " + t.detail});
    const bool good = t.outcome == sweep::SizeOutcome::correct;
    trials.rows.push_back({{{size_text(in, t.size)},
                            {fmt::format("{:.0f}", pixels(t.size))},
                            Cell(std::string(sweep::to_string(t.outcome)),
                                 good                                            ? "match"
                                 : t.outcome == sweep::SizeOutcome::partly_wrong ? "inconclusive"
                                                                                 : "mismatch"),
                            {t.status},
                            {optional_text(t.max_abs)},
                            {ms_text(t.run_ms)},
                            {t.detail}}});
  }
  std::vector<XRange> ranges;
  if (c.band_low && c.band_high)
    ranges.push_back({pixels(*c.band_low), pixels(*c.band_high), "partly wrong"});
  std::vector<XMarker> markers;
  if (c.budget) markers.push_back({pixels(*c.budget), "budget " + size_text(in, c.budget)});
  const std::string title =
      fmt::format("{} {} opt {}: max_abs against pixel count", r.backend, r.variant, r.opt_level);
  BulletList summary;  // the terminal's lines, one item each
  for (const std::string& line : split(cliff_lines(plan, r), '\n'))
    if (const auto at = line.find_first_not_of(' '); at != std::string::npos)
      summary.items.push_back(line.substr(at));
  return {
      "Size cliff: " + r.backend + " " + r.variant + " opt " + r.opt_level,
      {{"cell", std::to_string(r.index)}},
      {std::move(summary),
       Chart{svg_log_scatter(points, "pixels (" + in + " H x W)", title, ranges, markers), title},
       Paragraph{"green correct, amber partly wrong (some regions), red wrong, purple failed to run (drawn "
                 "at the top); the dashed line is the suggested budget",
                 "note"},
       std::move(trials)}};
}

}  // namespace

Document sweep_document(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results) {
  Document doc{"parity sweep " + plan.model.filename().string(),
               fmt::format("{} of {} cells; reference {}; {} backend(s), {} variant(s), opt levels {}",
                           results.size(), plan.cell_count(), plan.reference.label, plan.backends.size(),
                           plan.variants.size(), fmt::join(plan.opt_levels, ", ")),
               {matrix_section(plan, results)}};
  if (plan.size_search)
    for (const auto& r : results)
      if (r.cliff) doc.sections.push_back(cliff_section(plan, r));
  BulletList ladder;
  for (const auto& l : sweep::judge_ladder(plan, results))
    for (const std::string& line : split(ladder_line(l, results), '\n'))
      if (const auto at = line.find_first_not_of(' '); at != std::string::npos)
        ladder.items.push_back((at > 0 ? "finding: " : "") + line.substr(at));
  doc.sections.push_back({"Smallest correct variant per backend", {}, {std::move(ladder)}});
  return doc;
}

std::string sweep_cell_list(const sweep::SweepPlan& plan) {
  std::vector<std::vector<std::string>> rows{{"CELL", "BACKEND", "VARIANT", "OPT", "SIZE"}};
  for (std::size_t k = 0; k < plan.cell_count(); ++k) {
    const sweep::Cell c = sweep::cell_at(plan, k);
    rows.push_back({std::to_string(k), plan.backends[c.backend].label, plan.variants[c.variant].name,
                    plan.opt_levels[c.opt_level], plan.sizes.empty() ? "-" : plan.sizes[c.size].label()});
  }
  return aligned(rows);
}

std::string sweep_table(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results) {
  std::string out =
      fmt::format("parity sweep {}: {} of {} cells, reference {} on {}\n\n", plan.model.filename().string(),
                  results.size(), plan.cell_count(), plan.reference.label, plan.model.filename().string());
  std::vector<std::vector<std::string>> rows{{"BACKEND", "VARIANT", "OPT", "SIZE", "STATUS", "MAX_ABS",
                                              "COSINE", "RUN", "PEAK MEM", "NODES EP/CPU"}};
  for (const auto& r : results)
    rows.push_back({r.backend, r.variant, r.opt_level, r.size.empty() ? "-" : r.size,
                    std::string(probe::to_string(r.status)), optional_text(r.max_abs),
                    r.cosine ? fmt::format("{:.6f}", *r.cosine) : "-", r.error ? "-" : ms_text(r.run_ms),
                    memory_text(r.peak_memory_bytes), nodes_text(r.ep, r.nodes_on_backend, r.nodes_on_cpu)});
  out += aligned(rows) + "\n";
  if (plan.size_search) {
    for (const auto& r : results)
      if (r.cliff) out += cliff_lines(plan, r);
    out += "\n";
  }
  for (const auto& l : sweep::judge_ladder(plan, results)) out += ladder_line(l, results);
  return out;
}

json sweep_to_json(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results) {
  json cells = json::array(), ladder = json::array();
  for (const auto& r : results) cells.push_back(sweep::cell_to_json(r));
  for (const auto& l : sweep::judge_ladder(plan, results))
    ladder.push_back(
        {{"backend", l.backend},
         {"smallest_correct", l.smallest_correct.empty() ? json(nullptr) : json(l.smallest_correct)},
         {"smallest_correct_bytes", l.smallest_correct_bytes},
         {"correct_opt_levels", l.correct_opt_levels},
         {"findings", findings(l, results)},
         {"missing_cells", l.missing_cells}});
  return {{"schema", kSweepSchema},
          {"plan", sweep::plan_to_json(plan)},
          {"cells", cells},
          {"ladder", ladder},
          {"complete", results.size() == plan.cell_count()}};
}

}  // namespace parity::report
