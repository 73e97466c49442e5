#include "sweep/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>

#include "core/interrupt.h"
#include "core/run_lock.h"
#include "core/utc_time.h"
#include "model/onnx_model.h"
#include "sweep/ladder.h"
#include "sweep/sweep_files.h"

namespace parity::sweep {
namespace {

namespace fs = std::filesystem;

Error plan_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::prepare_inputs, std::move(message), std::move(hint));
}

// The output a cell is summarised by: the first that fails, else the one with the largest error.
const probe::OutputReport* worst_output(const probe::BackendReport& b) {
  const probe::OutputReport* worst = nullptr;
  for (const auto& o : b.outputs) {
    if (o.verdict == Verdict::mismatch) return &o;
    if (!worst || (o.comparison && worst->comparison && o.comparison->max_abs > worst->comparison->max_abs))
      worst = &o;
  }
  return worst;
}

CellResult summarise(const probe::ProbeReport& report, const std::string& target_label, CellResult r) {
  const auto row = std::find_if(report.backends.begin(), report.backends.end(),
                                [&](const auto& b) { return b.name == target_label && !b.is_reference; });
  const auto ref = std::find_if(report.backends.begin(), report.backends.end(),
                                [](const auto& b) { return b.is_reference; });
  if (ref != report.backends.end() && ref->error) {
    Error e = *ref->error;
    e.message = "the reference could not run, so the cell cannot be judged: " + e.message;
    r.status = probe::BackendStatus::error;
    r.error = e;
    r.reference_failed = true;
    return r;
  }
  if (row == report.backends.end()) {
    r.status = probe::BackendStatus::error;
    r.error = make_error(ErrorKind::internal, Stage::none, "the cell's backend did not run (interrupted?)");
    return r;
  }
  r.status = row->status;
  r.error = row->error;
  r.ort_version = row->ort_version;
  r.adapter = row->adapter;
  r.nodes_on_backend = row->nodes_on_backend;
  r.nodes_on_cpu = row->nodes_on_cpu;
  r.create_ms = row->create_ms;
  r.run_ms = row->run_ms;
  r.peak_memory_bytes = row->peak_rss_bytes;
  if (const auto* o = worst_output(*row)) {
    r.worst_output = o->name;
    r.failed_rule = o->failed_rule;
    if (o->regions) {
      r.extent = std::string(to_string(o->regions->extent()));
      r.wrong_box = o->regions->wrong_box();
    }
    if (o->comparison) {
      r.max_abs = o->comparison->max_abs;
      r.cosine = o->comparison->cosine;
    }
  }
  return r;
}

std::string describe_cell(const SweepPlan& plan, const Cell& c) {
  std::string s = plan.backends[c.backend].label + " " + plan.variants[c.variant].name +
                  " opt=" + plan.opt_levels[c.opt_level];
  if (!plan.sizes.empty()) s += " " + plan.sizes[c.size].label();
  if (plan.size_search) s += " " + plan.size_search->input + "=search";
  return s;
}

// Seconds the cells todo[from..] will take: each costs the mean of the finished cells of its
// backend (backends differ by orders of magnitude: cpu ms, a browser seconds), else of all.
double eta_seconds(const SweepPlan& plan, const std::vector<std::size_t>& todo, std::size_t from,
                   const std::vector<double>& spent_s, const std::vector<int>& runs) {
  double all_s = 0;
  int all_runs = 0;
  for (std::size_t b = 0; b < spent_s.size(); ++b) all_s += spent_s[b], all_runs += runs[b];
  double eta = 0;
  for (std::size_t i = from; i < todo.size(); ++i) {
    const std::size_t b = cell_at(plan, todo[i]).backend;
    eta += runs[b] ? spent_s[b] / runs[b] : all_s / std::max(all_runs, 1);
  }
  return eta;
}

std::string eta_text(double seconds) {
  const long s = std::lround(seconds);
  return s >= 60 ? std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s" : std::to_string(s) + "s";
}

// out_dir/plan.json must be this plan: results of another plan in the same folder would mix.
Status claim_out_dir(const SweepPlan& plan, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return make_error(ErrorKind::io, Stage::write_output, dir.string() + ": cannot create: " + ec.message(),
                      "pick a writable --out folder");
  const fs::path plan_path = dir / "plan.json";
  if (!fs::exists(plan_path)) return write_plan(plan, plan_path);
  PARITY_ASSIGN_OR_RETURN(existing, read_plan(plan_path));
  if (plan_to_json(existing) != plan_to_json(plan))
    return plan_error(dir.string() + " holds a different sweep (its plan.json differs from this one)",
                      "use a new --out folder, or run that sweep with --plan " + plan_path.string());
  return ok_status();
}

// Cell `c` probed at one size (or the inputs as given): the reference on the fp32 model, the cell's
// backend on its variant, in isolated workers.
Result<CellResult> probe_cell(const SweepPlan& plan, const Cell& c, const std::optional<SizePoint>& size,
                              isolate::BackendRunner& runner, const ProgressSink& progress) {
  const Variant& variant = plan.variants[c.variant];
  probe::ProbeOptions o;
  o.model_path = variant.path;
  o.reference = plan.reference;
  o.reference.label = "reference";  // a cpu cell must not be taken for the reference itself
  if (variant.path != plan.model) o.reference_model = plan.model;
  backend::BackendSpec target = plan.backends[c.backend];
  target.opt_level = plan.opt_levels[c.opt_level];
  o.backends = {target};
  o.inputs = plan.inputs;
  if (size) {
    PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(variant.path));
    PARITY_TRY(probe::set_spatial_size(size->input, size->height, size->width, info, o.inputs));
  }
  o.limits = plan.limits;
  o.judge_as = judging_dtype(variant.precision);
  if (variant.path != plan.model) {
    // A variant differs from the fp32 model by construction (an fp16 network is off by a few
    // percent on a steep sigmoid), so the backend is judged against what the variant does on
    // the reference backend: its spread there is the noise floor (x kNoiseMargin). The cosine floor
    // keeps a variant that is noise everywhere (a broken int8 export) from passing by that floor.
    backend::BackendSpec floor = plan.reference;
    floor.label = "reference-" + variant.name;
    o.noise_from = floor;
    o.min_cosine = kVariantMinCosine;
    o.drift_cosine = variant_drift_cosine(variant.precision);
  }
  o.runner = &runner;
  CellResult r;
  r.index = c.index;
  r.backend = target.label;
  r.ep = target.ep;
  r.variant = variant.name;
  r.opt_level = target.opt_level;
  r.size = size ? size->label() : "";
  PARITY_ASSIGN_OR_RETURN(report, probe::run_probe(o, progress));
  return summarise(report, target.label, std::move(r));
}

// What a probed size means for the cliff search: a partly wrong image-like output (some regions,
// or a few scattered elements) is told apart from one wrong all over.
SizeOutcome outcome_of(const CellResult& r) {
  if (r.status == probe::BackendStatus::ok) return SizeOutcome::correct;
  if (r.status != probe::BackendStatus::mismatch) return SizeOutcome::failed;
  return r.extent == "none" || r.extent == "part" ? SizeOutcome::partly_wrong : SizeOutcome::wrong;
}

// The sizes a search already probed, from its journal (one CellResult line per size; a torn last
// line from a killed run is ignored). Missing file: none.
std::map<std::string, CellResult> read_journal(const fs::path& journal) {
  std::map<std::string, CellResult> out;
  std::ifstream in(journal);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) continue;
    if (auto r = cell_from_json(j); r.ok()) out[r->size] = std::move(*r);
  }
  return out;
}

// A size-search cell: the cliff search, each size one probe; the cell reports the largest correct
// size (or the first one tried when none was) with the whole search attached. With a journal, every
// probed size is appended to it at once, and sizes it holds are not probed again: the search is
// deterministic, so --resume after a kill replays the recorded sizes and goes on from there.
Result<CellResult> search_cell(const SweepPlan& plan, const Cell& c, isolate::BackendRunner& runner,
                               const ProgressSink& progress, const fs::path& journal) {
  const SizeSearch& search = *plan.size_search;
  std::map<int64_t, CellResult> probed;
  std::map<std::string, CellResult> recorded =
      journal.empty() ? std::map<std::string, CellResult>{} : read_journal(journal);
  auto judge = [&](const SearchSize& size) -> Result<SizeTrial> {
    const SizePoint point = size_point(search, size);
    CellResult r;
    bool replayed = false;
    if (const auto it = recorded.find(point.label()); it != recorded.end()) {
      r = it->second;
      replayed = true;
    } else {
      PARITY_ASSIGN_OR_RETURN(fresh, probe_cell(plan, c, point, runner, {}));
      r = std::move(fresh);
    }
    if (interrupted())
      return make_error(ErrorKind::interrupted, Stage::none, "interrupted during the size search",
                        "rerun with --resume: the cell starts over");
    SizeTrial t;
    t.size = size;
    t.outcome = outcome_of(r);
    t.status = std::string(probe::to_string(r.status));
    t.detail = describe_outcome(r);
    t.extent = r.extent;
    t.max_abs = r.max_abs;
    t.cosine = r.cosine;
    t.run_ms = r.run_ms;
    t.peak_memory_bytes = r.peak_memory_bytes;
    if (!replayed && !journal.empty()) PARITY_TRY(append_result(journal, r));
    if (progress)
      progress("size search: " + point.label() + " " + std::string(to_string(t.outcome)) +
               (replayed ? " (recorded before the interruption)" : ""));
    probed[size.k] = std::move(r);
    return t;
  };
  PARITY_ASSIGN_OR_RETURN(cliff, search_cliff(search, judge));
  const int64_t shown = cliff.largest_correct ? cliff.largest_correct->k : cliff.trials.front().size.k;
  CellResult r = std::move(probed.at(shown));
  r.cliff = std::move(cliff);
  return r;
}

}  // namespace

SizePoint size_point(const SizeSearch& s, const SearchSize& size) {
  return {s.input, size.height, size.width};
}

std::string SizePoint::label() const {
  return input + "=" + std::to_string(height) + "x" + std::to_string(width);
}

std::size_t SweepPlan::cell_count() const {
  return backends.size() * variants.size() * opt_levels.size() * std::max<std::size_t>(sizes.size(), 1);
}

Cell cell_at(const SweepPlan& plan, std::size_t index) {
  Cell c;
  c.index = index;
  const std::size_t sizes = std::max<std::size_t>(plan.sizes.size(), 1);
  c.size = index % sizes;
  index /= sizes;
  c.opt_level = index % plan.opt_levels.size();
  index /= plan.opt_levels.size();
  c.variant = index % plan.variants.size();
  c.backend = index / plan.variants.size();
  return c;
}

Status check_cell_index(const SweepPlan& plan, std::size_t index) {
  if (index < plan.cell_count()) return ok_status();
  return plan_error("cell " + std::to_string(index) + " is not in the plan, which has " +
                        std::to_string(plan.cell_count()) + " cells (0 to " +
                        std::to_string(plan.cell_count() - 1) + ")",
                    "'parity sweep --plan FILE --list' shows them");
}

std::size_t cell_index(const SweepPlan& plan, std::size_t backend, std::size_t variant, std::size_t opt_level,
                       std::size_t size) {
  const std::size_t sizes = std::max<std::size_t>(plan.sizes.size(), 1);
  return ((backend * plan.variants.size() + variant) * plan.opt_levels.size() + opt_level) * sizes + size;
}

Result<CellResult> run_cell(const SweepPlan& plan, std::size_t index, isolate::BackendRunner& runner,
                            const ProgressSink& progress, const fs::path& journal) {
  PARITY_TRY(check_cell_index(plan, index));
  const Cell c = cell_at(plan, index);
  const auto start = std::chrono::steady_clock::now();
  CellResult r;
  if (plan.size_search) {
    PARITY_ASSIGN_OR_RETURN(searched, search_cell(plan, c, runner, progress, journal));
    r = std::move(searched);
  } else {
    std::optional<SizePoint> size;
    if (!plan.sizes.empty()) size = plan.sizes[c.size];
    PARITY_ASSIGN_OR_RETURN(probed, probe_cell(plan, c, size, runner, progress));
    r = std::move(probed);
  }
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.finished_at = utc_now();
  return r;
}

Result<std::vector<CellResult>> run_sweep(const SweepPlan& plan, const SweepRun& run,
                                          const ProgressSink& progress) {
  if (run.only_cell) PARITY_TRY(check_cell_index(plan, *run.only_cell));  // before anything is written
  PARITY_TRY(claim_out_dir(plan, run.out_dir));
  // One writer per cell: a whole sweep owns the folder, a --cell K run only cell K, so parallel
  // cell jobs share a folder while two sweeps (which would both run every missing cell) cannot.
  PARITY_ASSIGN_OR_RETURN(
      lock, RunLock::acquire(run.out_dir / kRunLockName,
                             run.only_cell ? "cell " + std::to_string(*run.only_cell) + " of the sweep in " +
                                                 run.out_dir.string()
                                           : "the sweep folder " + run.out_dir.string(),
                             run.only_cell ? std::optional<uint64_t>(*run.only_cell) : std::nullopt));
  PARITY_ASSIGN_OR_RETURN(done, read_results(run.out_dir, plan));
  std::vector<std::size_t> todo;
  if (run.only_cell) {
    PARITY_TRY(check_cell_index(plan, *run.only_cell));
    todo.push_back(*run.only_cell);
  } else {
    if (!done.empty() && !run.resume)
      return plan_error(
          run.out_dir.string() + " already holds " + std::to_string(done.size()) + " finished cells",
          "pass --resume to keep them and run the rest, or pick a new --out folder");
    for (std::size_t k = 0; k < plan.cell_count(); ++k)
      if (!done.count(k)) todo.push_back(k);
    if (!done.empty() && progress)
      progress("sweep: " + std::to_string(done.size()) + " of " + std::to_string(plan.cell_count()) +
               " cells already finished in " + run.out_dir.string() + ", " + std::to_string(todo.size()) +
               " to run");
  }
  const fs::path results_path =
      run.out_dir /
      (run.only_cell ? "results-cell-" + std::to_string(*run.only_cell) + ".jsonl" : "results.jsonl");
  std::unique_ptr<isolate::BackendRunner> own_runner;
  isolate::BackendRunner& runner = isolate::runner_or(run.runner, own_runner);
  std::vector<double> spent_s(plan.backends.size(), 0);
  std::vector<int> runs(plan.backends.size(), 0);
  for (std::size_t i = 0; i < todo.size() && !interrupted(); ++i) {
    const Cell c = cell_at(plan, todo[i]);
    if (progress) {
      std::string line = "sweep: cell " + std::to_string(i + 1) + "/" + std::to_string(todo.size()) + " (#" +
                         std::to_string(todo[i]) + ") " + describe_cell(plan, c);
      if (i > 0) line += ", ETA " + eta_text(eta_seconds(plan, todo, i, spent_s, runs));
      progress(line);
    }
    // A size search reports each size it tries; a plain cell's probe lines would only be noise.
    const fs::path journal =
        plan.size_search ? run.out_dir / ("search-cell-" + std::to_string(todo[i]) + ".jsonl") : fs::path();
    PARITY_ASSIGN_OR_RETURN(
        r, run_cell(plan, todo[i], runner, plan.size_search ? progress : ProgressSink{}, journal));
    if (interrupted()) break;  // a cell cut short by Ctrl-C is not a result: --resume reruns it
    spent_s[c.backend] += r.wall_ms / 1000;
    ++runs[c.backend];
    PARITY_TRY(append_result(results_path, r));
    if (!journal.empty()) {  // the cell's result holds the whole search now
      std::error_code ec;
      fs::remove(journal, ec);
    }
    if (progress)
      progress("sweep: " + describe_cell(plan, c) + ": " + std::string(probe::to_string(r.status)));
    done[r.index] = std::move(r);
  }
  std::vector<CellResult> out;
  for (auto& [k, r] : done) out.push_back(std::move(r));
  return out;
}

}  // namespace parity::sweep
