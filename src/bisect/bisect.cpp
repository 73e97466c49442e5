#include "bisect/bisect.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <limits>
#include <map>
#include <set>

#include "bisect/repro_folder.h"
#include "bisect/tensor_check.h"
#include "core/interrupt.h"
#include "core/parallel_for.h"
#include "core/scratch_dir.h"
#include "model/graph_facts.h"
#include "model/model_rewrite.h"
#include "model/onnx_model.h"
#include "parity/version.h"
#include "probe/exposed_run.h"
#include "probe/precision.h"

namespace parity::bisect {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

Error bad_invocation(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

bool is_constant_op(const std::string& op) { return op == "Constant"; }

// Ops whose output jumps when two inputs cross: on values equal within rounding noise either
// answer is right (local-maximum masks as in M-LSD's Sigmoid -> MaxPool -> Equal, argmax of ties).
bool is_selection_op(const std::string& op) {
  static const std::set<std::string> ops{"Equal",       "Greater",          "GreaterOrEqual", "Less",
                                         "LessOrEqual", "ArgMax",           "ArgMin",         "TopK",
                                         "NonZero",     "NonMaxSuppression"};
  return ops.count(op) > 0;
}

// Everything run_bisect needs while it works: the graph, the inputs, the scratch folder, the
// cached reference values, and the run counter.
class Bisector {
 public:
  Bisector(const BisectOptions& o, const ProgressSink& p, model::ModelSurgery surgery, probe::InputPlan plan,
           ScratchDir work, std::optional<backend::TestFault> ref_fault,
           std::optional<backend::TestFault> target_fault, std::optional<backend::TestFault> exposed_fault)
      : options_(o),
        progress_(p),
        surgery_(std::move(surgery)),
        plan_(std::move(plan)),
        work_(std::move(work)),
        ref_fault_(ref_fault),
        target_fault_(target_fault),
        exposed_fault_(exposed_fault) {}

  Result<BisectReport> run();

 private:
  void say(const std::string& line) const {
    if (progress_) progress_(line);
  }
  const model::GraphOutline& graph() const { return surgery_.outline(); }
  double since_start_ms() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }

  // One backend run: prepared (and announced) on this thread, executed anywhere, recorded here.
  struct PendingRun {
    const backend::BackendSpec* who;  // options_.reference or options_.target
    backend::BackendSpec spec;
    backend::RunRequest request;
    isolate::WorkerLaunch launch;
    std::string what;
    double start_ms = 0;
  };
  PendingRun prepare(const backend::BackendSpec& spec, const fs::path& model,
                     const std::vector<NamedTensor>& inputs, const std::vector<std::string>& outputs,
                     const std::optional<backend::TestFault>& fault, const std::string& what) {
    PendingRun p{&spec, spec, {}, {options_.worker_exe, fault, {}}, what, since_start_ms()};
    p.request.model_path = model.string();
    p.request.inputs = inputs;
    p.request.output_names = outputs;
    p.spec.count_nodes = false;  // profiling every bisect run would double its cost
    ++report_.backend_runs;
    say(spec.label + ": " + what + " (run " + std::to_string(report_.backend_runs) + ")");
    return p;
  }
  isolate::IsolatedRun execute(isolate::BackendRunner& runner, const PendingRun& p) const {
    return runner.run(p.spec, p.request, options_.limits, p.launch);
  }
  void record(const PendingRun& p, const isolate::IsolatedRun& r) {
    RunCost cost{p.spec.label, p.what, p.start_ms, r.wall_ms};
    if (r.result.ok()) {
      cost.ok = true;
      cost.create_ms = r.result->create_ms;
      cost.run_ms = r.result->run_ms;
      for (const auto& t : r.result->outputs) cost.output_bytes += t.tensor.byte_size();
    }
    report_.runs.push_back(std::move(cost));
    if (!r.result.ok()) return;
    if (report_.ort_version.empty()) report_.ort_version = r.result->runtime_version;
    if (p.who == &options_.target && !r.result->adapter.empty()) report_.adapter = r.result->adapter;
    if (p.who == &options_.target && report_.target_properties.empty())
      report_.target_properties = r.result->properties;
  }
  isolate::BackendRunner& runner() { return isolate::runner_or(options_.runner, own_runner_); }

  isolate::IsolatedRun run_backend(const backend::BackendSpec& spec, const fs::path& model,
                                   const std::vector<NamedTensor>& inputs,
                                   const std::vector<std::string>& outputs,
                                   const std::optional<backend::TestFault>& fault, const std::string& what) {
    const PendingRun p = prepare(spec, model, inputs, outputs, fault, what);
    auto r = execute(runner(), p);
    record(p, r);
    return r;
  }

  // The reference and the target on the same model and inputs at once: they are separate workers
  // (or a browser), usually on separate devices, so a round costs the slower of the two, not both.
  std::pair<isolate::IsolatedRun, isolate::IsolatedRun> run_both(
      const fs::path& model, const std::vector<NamedTensor>& inputs, const std::vector<std::string>& outputs,
      const std::optional<backend::TestFault>& target_fault, const std::string& what) {
    const PendingRun ref = prepare(options_.reference, model, inputs, outputs, ref_fault_, what);
    const PendingRun target = prepare(options_.target, model, inputs, outputs, target_fault, what);
    isolate::BackendRunner& shared = runner();  // made here, before a second thread uses it
    auto ref_run = std::async(std::launch::async, [&] { return execute(shared, ref); });
    auto target_result = execute(shared, target);
    auto ref_result = ref_run.get();
    record(ref, ref_result);
    record(target, target_result);
    return {std::move(ref_result), std::move(target_result)};
  }

  uint64_t estimate_bytes(const model::NodeOutput& t) const;
  Status expose_round(const std::vector<int>& cps, bool first_round, bool& exposed_failed);
  Status extracted_fallback();
  Status fetch_reference(const std::vector<std::string>& names);
  Status isolate_candidates();
  Status isolate_culprit();
  std::vector<std::string> cut_reads(const std::set<int>& chosen) const;
  Status try_cut(const std::set<int>& chosen, const std::vector<std::string>& outputs, bool& done);
  void start_report();
  // After a stop request: the compared rows stand, every conclusion drawn from the rest goes.
  void mark_interrupted() {
    report_.interrupted = true;
    report_.first_divergent.reset();
    report_.path.clear();
    report_.isolation = {};
    report_.repro_dir.reset();
    if (report_.target_error && report_.target_error->kind == ErrorKind::interrupted)
      report_.target_error.reset();
  }
  Status narrow(bool& exposed_failed);
  Status judge_final_outputs();
  Status after_failed_exposure();
  Status settle_first_divergent();
  std::vector<int> unseen_upstream(int order) const;
  Status explain_culprit();
  // Waits for the plain target run (once); false, with report_.target_error set, when the target
  // cannot run the model at all.
  bool await_plain();

  const BisectOptions& options_;
  // The comparison's reduced arithmetic ("tf32" when either side is CUDA with TF32), judged as
  // probe judges it: without this every tensor of a real network on CUDA would be "divergent".
  const std::string_view arithmetic_ = probe::judged_arithmetic(options_.reference, options_.target);
  std::unique_ptr<isolate::BackendRunner> own_runner_;  // when options_.runner is null
  Clock::time_point start_ = Clock::now();
  const ProgressSink& progress_;
  model::ModelSurgery surgery_;
  probe::InputPlan plan_;
  ScratchDir work_;  // the cut models, removed whatever happens
  std::optional<backend::TestFault> ref_fault_, target_fault_, exposed_fault_;
  BisectReport report_;
  std::vector<int> candidates_;                    // indices into graph().tensors that can be exposed
  std::map<std::string, NamedTensor> ref_values_;  // reference values seen so far
  std::vector<NamedTensor> plain_target_outputs_;
  int model_counter_ = 0;
  // The isolation result, kept for the repro folder.
  fs::path iso_model_;
  std::vector<NamedTensor> iso_inputs_, iso_expected_, iso_observed_;
  // The plain target run: prepared first, run alongside the first exposed round for a native
  // target. Declared last, so the future (which waits for its run) goes before what the run uses.
  std::optional<PendingRun> plain_run_;
  bool plain_done_ = false;
  std::future<isolate::IsolatedRun> plain_future_;
};

bool Bisector::await_plain() {
  if (plain_done_ || !plain_run_) return !report_.target_error;
  plain_done_ = true;
  auto plain = plain_future_.valid() ? plain_future_.get() : execute(runner(), *plain_run_);
  record(*plain_run_, plain);
  report_.plain_run_ms = plain.wall_ms;
  if (!plain.result.ok()) {
    report_.target_error = plain.result.error();
  } else {
    // The target as users run it: its properties (placement) are the plain model's, not the
    // exposed one's that may have finished first.
    report_.target_properties = plain.result->properties;
    plain_target_outputs_ = std::move(plain.result->outputs);
  }
  return !report_.target_error;
}

uint64_t Bisector::estimate_bytes(const model::NodeOutput& t) const {
  uint64_t largest_input = 1;
  for (const auto& in : plan_.samples[0])
    largest_input = std::max<uint64_t>(largest_input, in.tensor.byte_size());
  if (!t.shape) return largest_input * 4;  // unknown: assume an activation a few times the input
  uint64_t n = 1;
  for (int64_t d : *t.shape) {
    if (d < 0) return largest_input * 4;
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) return UINT64_MAX;
  }
  uint64_t bytes = 0;
  return __builtin_mul_overflow(n, std::max<uint64_t>(1, dtype_size(t.dtype)), &bytes) ? UINT64_MAX : bytes;
}

Status Bisector::fetch_reference(const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  for (const auto& n : names)
    if (!ref_values_.count(n) && !find_named(plan_.samples[0], n)) missing.push_back(n);
  if (missing.empty()) return ok_status();
  const fs::path m = work_ / ("fetch_" + std::to_string(model_counter_++) + ".onnx");
  PARITY_TRY(surgery_.write_exposed(m, missing));
  auto r = run_backend(options_.reference, m, plan_.samples[0], missing, ref_fault_, "reference values");
  if (!r.result.ok()) return r.result.error();
  for (auto& t : r.result->outputs) ref_values_[t.name] = std::move(t);
  return ok_status();
}

Status Bisector::expose_round(const std::vector<int>& cps, bool first_round, bool& exposed_failed) {
  const auto& g = graph();
  std::vector<std::string> names;
  if (first_round) names = g.graph_outputs;
  for (int i : cps) {
    const std::string& n = g.tensors[static_cast<std::size_t>(i)].tensor;
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  const fs::path m = work_ / ("exposed_" + std::to_string(model_counter_++) + ".onnx");
  PARITY_TRY(surgery_.write_exposed(m, names));
  const std::string what = "exposing " + std::to_string(cps.size()) + " tensors";
  auto [ref, target] =
      run_both(m, plan_.samples[0], names, exposed_fault_ ? exposed_fault_ : target_fault_, what);
  if (first_round && !await_plain()) return ok_status();  // the target cannot run: run() reports it
  if (!ref.result.ok()) {
    Error e = ref.result.error();
    e.message = "the reference failed with exposed tensors: " + e.message;
    return e;
  }
  for (auto& t : ref.result->outputs) ref_values_[t.name] = std::move(t);
  if (!target.result.ok()) {
    exposed_failed = true;
    report_.notes.push_back("the target failed when intermediate tensors were exposed (" +
                            target.result.error().describe() + "); falling back to extracted subgraphs");
    return ok_status();
  }
  const auto& outs = target.result->outputs;
  if (first_round) {
    bool exposed_mismatch = false;
    for (const auto& o : g.graph_outputs) {
      auto it = ref_values_.find(o);
      if (it == ref_values_.end()) continue;
      if (compare_one(find_named(outs, o), it->second, options_.tolerance, arithmetic_).verdict ==
          Verdict::mismatch)
        exposed_mismatch = true;
      if (compare_one(find_named(plain_target_outputs_, o), it->second, options_.tolerance, arithmetic_)
              .verdict == Verdict::mismatch)
        report_.final_mismatch = true;
    }
    if (report_.final_mismatch && !exposed_mismatch) {
      report_.exposure_reproduces = false;
      exposed_failed = true;
      report_.notes.push_back(
          "exposing intermediate tensors changes the target's result: the exposed run no longer reproduces "
          "the "
          "final mismatch (fusion or placement changed); falling back to extracted subgraphs");
      return ok_status();
    }
    if (!report_.final_mismatch && exposed_mismatch)
      report_.notes.push_back(
          "the plain run matches but the exposed run does not: exposing tensors changes the "
          "target's result");
  }
  // Each checkpoint is its own row: compared on every core (a round of ViT-B/16 compares 1,017
  // tensors, 586 MB a side). Rows once each (a node's inputs may name one tensor twice).
  std::vector<int> rows(cps);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  std::map<std::string_view, const NamedTensor*> by_name;
  for (const auto& o : outs) by_name.emplace(o.name, &o);
  parallel_for(rows.size(), [&](std::size_t k) {
    const auto i = static_cast<std::size_t>(rows[k]);
    const auto& t = g.tensors[i];
    auto& row = report_.tensors[i];
    auto it = ref_values_.find(t.tensor);
    if (it == ref_values_.end()) return;
    const auto got = by_name.find(t.tensor);
    TensorReport r = compare_one(got == by_name.end() ? nullptr : got->second, it->second, options_.tolerance,
                                 arithmetic_);
    r.node = row.node;
    r.op_type = row.op_type;
    r.order = row.order;
    row = std::move(r);
  });
  return ok_status();
}

// When exposing outputs hides or breaks the bug: cut the prefix that computes one tensor (its
// ancestors only, no extra outputs) and halve the topological order on "does this prefix's output
// diverge", as the seed did by hand with extract_model.
Status Bisector::extracted_fallback() {
  report_.method = "extracted";
  const auto& g = graph();
  {
    // One reference run for every value the halving may ask for, when they fit the budget.
    uint64_t total = 0;
    std::vector<std::string> all;
    for (int i : candidates_) {
      total += estimate_bytes(g.tensors[static_cast<std::size_t>(i)]);
      all.push_back(g.tensors[static_cast<std::size_t>(i)].tensor);
    }
    if (total <= options_.exposure_budget_bytes) PARITY_TRY(fetch_reference(all));
  }
  auto ancestors = [&](int tensor_index) {
    std::set<int> nodes;
    std::vector<int> stack{g.tensors[static_cast<std::size_t>(tensor_index)].order};
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (!nodes.insert(n).second) continue;
      const auto& node = g.nodes[static_cast<std::size_t>(n)];
      std::vector<std::string> reads = node.inputs;
      reads.insert(reads.end(), node.outer_inputs.begin(), node.outer_inputs.end());
      for (const auto& r : reads)
        if (int p = g.producer_of(r); p >= 0) stack.push_back(p);
    }
    return std::vector<int>(nodes.begin(), nodes.end());
  };
  std::map<int, bool> diverges;  // candidate position -> verdict
  auto probe_prefix = [&](std::size_t pos) -> Result<bool> {
    if (auto it = diverges.find(static_cast<int>(pos)); it != diverges.end()) return it->second;
    const int ti = candidates_[pos];
    const auto& t = g.tensors[static_cast<std::size_t>(ti)];
    PARITY_TRY(fetch_reference({t.tensor}));
    const fs::path m = work_ / ("prefix_" + std::to_string(model_counter_++) + ".onnx");
    std::map<std::string, Shape> shapes;
    for (const auto& in : plan_.samples[0]) shapes[in.name] = in.tensor.shape();
    PARITY_ASSIGN_OR_RETURN(inputs, surgery_.write_subgraph(m, ancestors(ti), {t.tensor}, shapes));
    std::vector<NamedTensor> feed;
    for (const auto& name : inputs)
      if (const NamedTensor* in = find_named(plan_.samples[0], name)) feed.push_back(*in);
    auto r =
        run_backend(options_.target, m, feed, {t.tensor}, target_fault_, "prefix up to '" + t.tensor + "'");
    if (!r.result.ok()) return r.result.error();
    TensorReport row = compare_one(find_named(r.result->outputs, t.tensor), ref_values_.at(t.tensor),
                                   options_.tolerance, arithmetic_);
    auto& slot = report_.tensors[static_cast<std::size_t>(ti)];
    row.node = slot.node;
    row.op_type = slot.op_type;
    row.order = slot.order;
    slot = row;
    diverges[static_cast<int>(pos)] = row.verdict == Verdict::mismatch;
    return row.verdict == Verdict::mismatch;
  };
  // Halving: lo..hi holds the first divergent position, assuming a diverging prefix stays
  // diverging downstream (true along one path; documented as a limit for parallel branches).
  std::size_t lo = 0, hi = candidates_.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    PARITY_ASSIGN_OR_RETURN(d, probe_prefix(mid));
    if (d)
      hi = mid;
    else
      lo = mid + 1;
  }
  return ok_status();
}

Status Bisector::isolate_candidates() {
  // The first divergence is isolated first. When it does not reproduce alone, later tensors whose
  // error is born at their own node are tried (a few: each costs two or more runs), because
  // rounding noise just over its bound can sit before the real culprit in topological order.
  constexpr std::size_t kMaxCandidates = 3;
  std::vector<FirstDivergent> candidates{*report_.first_divergent};
  if (report_.method == "exposed") candidates = find_divergent_candidates(graph(), report_.tensors);
  // A near-tie flip is real but is no miscompute: a later divergence born at its node comes first.
  std::stable_partition(candidates.begin(), candidates.end(),
                        [](const FirstDivergent& c) { return !c.near_tie; });
  struct Attempt {
    FirstDivergent fd;
    Isolation iso;
    fs::path model;
    std::vector<NamedTensor> inputs, expected, observed;
  };
  std::optional<Attempt> first_attempt;
  for (std::size_t k = 0; k < candidates.size() && k < kMaxCandidates; ++k) {
    report_.first_divergent = candidates[k];
    report_.isolation = Isolation{};
    PARITY_TRY(isolate_culprit());
    if (report_.isolation.reproduces) {
      if (first_attempt)
        report_.notes.push_back(
            "the first divergent tensor '" + first_attempt->fd.tensor + "' (node '" + first_attempt->fd.node +
            "', " + describe_error(first_attempt->fd.metrics, "") +
            ") does not reproduce alone: " + first_attempt->iso.note +
            "; taken as rounding noise, the culprit is the next divergence born at its node");
      return ok_status();
    }
    if (!first_attempt)
      first_attempt =
          Attempt{candidates[k], report_.isolation, iso_model_, iso_inputs_, iso_expected_, iso_observed_};
  }
  if (first_attempt && candidates.size() > 1) {  // none reproduced: report the first, as found
    report_.first_divergent = first_attempt->fd;
    report_.isolation = first_attempt->iso;
    iso_model_ = first_attempt->model;
    iso_inputs_ = first_attempt->inputs;
    iso_expected_ = first_attempt->expected;
    iso_observed_ = first_attempt->observed;
  }
  return ok_status();
}

// Values the cut `chosen` reads from outside itself (graph inputs and other nodes' outputs).
std::vector<std::string> Bisector::cut_reads(const std::set<int>& chosen) const {
  const auto& g = graph();
  std::vector<std::string> reads;
  for (int n : chosen) {
    const auto& node = g.nodes[static_cast<std::size_t>(n)];
    for (const auto& r : node.inputs)
      if (!r.empty() && !g.initializers.count(r)) reads.push_back(r);
    for (const auto& r : node.outer_inputs)
      if (!g.initializers.count(r)) reads.push_back(r);
  }
  return reads;
}

// Writes the cut `chosen` as a model, runs it on both backends with the reference's captured
// values as inputs, and records the outcome in report_.isolation. `done` is set when the outcome
// is final (it reproduces, or a backend could not run it); otherwise the caller grows the cut.
Status Bisector::try_cut(const std::set<int>& chosen, const std::vector<std::string>& outputs, bool& done) {
  const auto& g = graph();
  auto& iso = report_.isolation;
  const fs::path m = work_ / ("isolated_" + std::to_string(model_counter_++) + ".onnx");
  std::vector<std::string> to_fetch;  // inputs come from the reference's values: fetch them first
  for (const auto& r : cut_reads(chosen))
    if (g.producer_of(r) >= 0 && !chosen.count(g.producer_of(r))) to_fetch.push_back(r);
  PARITY_TRY(fetch_reference(to_fetch));
  std::map<std::string, Shape> shapes;
  for (const auto& in : plan_.samples[0]) shapes[in.name] = in.tensor.shape();
  for (const auto& [name, t] : ref_values_) shapes[name] = t.tensor.shape();
  PARITY_ASSIGN_OR_RETURN(
      inputs, surgery_.write_subgraph(m, std::vector<int>(chosen.begin(), chosen.end()), outputs, shapes));
  std::vector<NamedTensor> feed;
  for (const auto& name : inputs) {
    if (const NamedTensor* in = find_named(plan_.samples[0], name))
      feed.push_back(*in);
    else if (auto it = ref_values_.find(name); it != ref_values_.end())
      feed.push_back(it->second);
  }
  const std::string what = "isolated " + std::to_string(chosen.size()) + "-node model";
  auto [ref, target] = run_both(m, feed, outputs, target_fault_, what);
  done = true;
  if (!ref.result.ok()) {
    iso.note = "the reference could not run the isolated model: " + ref.result.error().describe();
    return ok_status();
  }
  iso.nodes.clear();
  for (int n : chosen) iso.nodes.push_back(g.nodes[static_cast<std::size_t>(n)].name);
  iso.outputs = outputs;
  iso_model_ = m;
  iso_inputs_ = feed;
  iso_expected_ = ref.result->outputs;
  if (!target.result.ok()) {
    iso.note = "the target failed on the isolated model: " + target.result.error().describe();
    iso.reproduces = true;  // a failure is a divergence too, and a smaller repro of it
    iso_observed_.clear();
    return ok_status();
  }
  iso_observed_ = target.result->outputs;
  iso.reproduces = false;
  for (const auto& e : iso_expected_) {
    TensorReport r = compare_one(find_named(iso_observed_, e.name), e, options_.tolerance, arithmetic_);
    if (!iso.metrics) iso.metrics = r.metrics;
    if (r.verdict == Verdict::mismatch) {
      iso.reproduces = true;
      iso.metrics = r.metrics;
    }
  }
  if (iso.reproduces)
    iso.note = chosen.size() == 1
                   ? "the single node reproduces the divergence"
                   : "the smallest reproducing subgraph has " + std::to_string(chosen.size()) + " nodes";
  done = iso.reproduces;
  return ok_status();
}

Status Bisector::isolate_culprit() {
  const auto& g = graph();
  report_.isolation.attempted = true;
  const int culprit = report_.first_divergent->order;
  std::set<int> chosen{culprit};
  std::vector<std::string> outputs;
  for (const auto& o : g.nodes[static_cast<std::size_t>(culprit)].outputs)
    if (!o.empty() && g.find_tensor(o) && g.find_tensor(o)->dtype != DType::undefined) outputs.push_back(o);
  for (int level = 0; level <= options_.max_grow_levels; ++level) {
    // Constant nodes feeding the cut belong to it: they are part of its weight path.
    for (int n : std::set<int>(chosen))
      for (const auto& in : g.nodes[static_cast<std::size_t>(n)].inputs)
        if (int p = g.producer_of(in); p >= 0 && is_constant_op(g.nodes[static_cast<std::size_t>(p)].op_type))
          chosen.insert(p);
    bool done = false;
    PARITY_TRY(try_cut(chosen, outputs, done));
    if (done) return ok_status();
    // Grow: add the producers of every value the cut reads from outside itself.
    std::set<int> grown = chosen;
    for (const auto& r : cut_reads(chosen))
      if (int p = g.producer_of(r); p >= 0) grown.insert(p);
    if (grown == chosen) break;
    chosen = std::move(grown);
  }
  report_.isolation.note =
      "no isolated subgraph up to " + std::to_string(options_.max_grow_levels) +
      " producer levels reproduces the divergence: it needs more of the graph (or exposure)";
  return ok_status();
}

// The report's header and one row per tensor; typed tensors become the exposure candidates.
void Bisector::start_report() {
  const auto& g = graph();
  report_.parity_version = std::string(kParityVersion);
  report_.model = (options_.source_model.empty() ? options_.model_path : options_.source_model).string();
  report_.notes = options_.rewrite_notes;
  report_.target = options_.target.label;
  report_.reference = options_.reference.label;
  report_.seed = options_.inputs.seed;
  report_.skipped_subgraphs = g.skipped_subgraphs;
  for (const auto& s : g.skipped_subgraphs) report_.notes.push_back("skipped subgraph: " + s);
  if (!arithmetic_.empty() && !options_.tolerance)
    report_.notes.push_back(probe::arithmetic_note(arithmetic_));
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const auto& t = g.tensors[i];
    TensorReport r;
    r.name = t.tensor;
    r.node = t.node;
    r.op_type = t.op_type;
    r.order = t.order;
    report_.tensors.push_back(r);
    if (t.dtype != DType::undefined)
      candidates_.push_back(static_cast<int>(i));
    else
      report_.notes.push_back("tensor '" + t.tensor + "' has no known type and is not compared");
  }
}

// Rounds of evenly spaced checkpoints within the budget; each round narrows to the span between
// the last matching checkpoint and the first divergent one. One round when everything fits.
Status Bisector::narrow(bool& exposed_failed) {
  std::vector<uint64_t> bytes;
  for (const auto& t : graph().tensors) bytes.push_back(estimate_bytes(t));
  std::vector<int> span = candidates_;
  bool first_round = true;
  while (!span.empty() && !exposed_failed && !report_.target_error) {
    const std::vector<int> cps = pick_checkpoints(span, bytes, options_.exposure_budget_bytes);
    PARITY_TRY(expose_round(cps, first_round, exposed_failed));
    first_round = false;
    if (exposed_failed || cps.size() == span.size()) break;
    auto bad_cp = std::find_if(cps.begin(), cps.end(), [&](int i) {
      return report_.tensors[static_cast<std::size_t>(i)].verdict == Verdict::mismatch;
    });
    if (bad_cp == cps.end()) break;
    const int prev = bad_cp == cps.begin() ? -1 : *(bad_cp - 1);
    std::vector<int> next;
    for (int i : span)
      if (i > prev && i < *bad_cp) next.push_back(i);
    span = std::move(next);
  }
  return ok_status();
}

// Judges the plain target run's final outputs against the reference (fetched on demand).
Status Bisector::judge_final_outputs() {
  const auto& outputs = graph().graph_outputs;
  PARITY_TRY(fetch_reference(outputs));
  for (const auto& o : outputs)
    if (auto it = ref_values_.find(o); it != ref_values_.end())
      report_.final_mismatch |=
          compare_one(find_named(plain_target_outputs_, o), it->second, options_.tolerance, arithmetic_)
              .verdict == Verdict::mismatch;
  return ok_status();
}

// The exposed model failed where the plain one ran: its verdicts are not evidence, so drop them
// and, when the final outputs differ, fall back to extracting subgraphs.
Status Bisector::after_failed_exposure() {
  for (auto& t : report_.tensors) {
    t.compared = false;
    t.verdict = Verdict::match;
    t.failed_rule.clear();
    t.detail.clear();
    t.metrics.reset();
  }
  if (!report_.final_mismatch && report_.exposure_reproduces) {
    // The exposed run crashed before we learnt about the final outputs: judge them now.
    PARITY_TRY(judge_final_outputs());
  }
  if (report_.final_mismatch) PARITY_TRY(extracted_fallback());
  return ok_status();
}

// The values upstream of node `order` that were never compared, reached through uncompared values
// only (the walk upstream stops at compared ones): settled in one round instead of one per hop (a
// weight path of Gather -> Reshape -> Transpose before an Add took four rounds). Past the exposure
// budget, just the node's own unseen inputs.
std::vector<int> Bisector::unseen_upstream(int order) const {
  const auto& g = graph();
  auto unseen_inputs = [&](int node) {
    std::vector<int> out;
    for (const auto& in : g.nodes[static_cast<std::size_t>(node)].inputs) {
      const model::NodeOutput* t = g.find_tensor(in);  // null: a graph input or an initializer
      if (!t) continue;
      const auto i = static_cast<std::size_t>(t - g.tensors.data());
      if (!report_.tensors[i].compared && t->dtype != DType::undefined) out.push_back(static_cast<int>(i));
    }
    return out;
  };
  std::vector<int> region, todo = unseen_inputs(order);
  std::set<int> seen(todo.begin(), todo.end());
  uint64_t bytes = 0;
  while (!todo.empty()) {
    const int t = todo.back();
    todo.pop_back();
    region.push_back(t);
    bytes += estimate_bytes(g.tensors[static_cast<std::size_t>(t)]);
    if (bytes > options_.exposure_budget_bytes) return unseen_inputs(order);
    for (int u : unseen_inputs(g.tensors[static_cast<std::size_t>(t)].order))
      if (seen.insert(u).second) todo.push_back(u);
  }
  std::sort(region.begin(), region.end());
  return region;
}

// Makes sure the culprit's inputs were compared, so born_here is evidence and not a guess.
Status Bisector::settle_first_divergent() {
  const auto& g = graph();
  for (int guard = 0; guard < 8; ++guard) {
    report_.first_divergent = find_first_divergent(g, report_.tensors);
    if (!report_.first_divergent || report_.method == "extracted") break;
    const std::vector<int> unseen = unseen_upstream(report_.first_divergent->order);
    if (unseen.empty()) break;
    bool failed = false;
    PARITY_TRY(expose_round(unseen, false, failed));
    if (failed) break;
  }
  return ok_status();
}

// What the first divergence means (near-tie, weight path, first layer) and its repro folder.
Status Bisector::explain_culprit() {
  PARITY_TRY(isolate_candidates());
  auto& fd = *report_.first_divergent;
  report_.path = path_to(graph(), fd.tensor);
  if (report_.method == "extracted") fd.born_here = report_.isolation.reproduces;
  if (fd.near_tie)
    report_.notes.push_back(
        "near-tie flip: node '" + fd.node + "' (" + fd.op_type +
        ") compares values that match the reference within their bounds, yet some results differ: "
        "rounding noise tipped near-equal values the other way. Both answers are defensible; this is "
        "not a miscompute of " +
        fd.op_type + ", and no divergence born at a later node was found");
  if (fd.weight_path && !fd.reads_graph_input)
    report_.notes.push_back("weight path: node '" + fd.node +
                            "' reads only initializers and constants, so it computes weights, not "
                            "activations; suspect how its weights, scales or zero points are read");
  else if (fd.weight_path)
    report_.notes.push_back("divergence at the first layer: node '" + fd.node +
                            "' reads only graph inputs and initializers, so suspect the weight path (how its "
                            "weights, scales or zero points are read) before the network structure");
  if (options_.repro_dir && report_.isolation.attempted && !iso_model_.empty()) {
    // A folder that cannot be written (full disk) loses only itself: the finished bisect is still
    // reported, its JSON written, and the verb says which folder failed.
    if (auto w = write_repro_folder(
            options_, report_, {iso_model_, iso_inputs_, iso_expected_, iso_observed_}, *options_.repro_dir);
        w.ok())
      report_.repro_dir = *options_.repro_dir;
    else {
      report_.repro_error = w.error();
      report_.repro_error->message =
          "the repro folder " + options_.repro_dir->string() + " was not written: " + w.error().message;
    }
  }
  return ok_status();
}

Result<BisectReport> Bisector::run() {
  start_ = Clock::now();
  auto finish = [&]() -> Result<BisectReport> {
    report_.wall_ms = since_start_ms();
    if (interrupted()) mark_interrupted();
    std::stable_sort(report_.runs.begin(), report_.runs.end(),
                     [](const RunCost& a, const RunCost& b) { return a.start_ms < b.start_ms; });
    return report_;
  };
  start_report();
  // The plain target run: does the target run at all, and what does it say without exposure? A
  // native target's runs in its own worker alongside the first exposed round (they need nothing
  // of each other); a browser target's first, so two page loads do not compete for the machine.
  plain_run_ =
      prepare(options_.target, options_.model_path, plan_.samples[0], {}, target_fault_, "plain run");
  if (!backend::is_web_backend(options_.target.ep) && !candidates_.empty()) {
    isolate::BackendRunner& shared = runner();
    plain_future_ = std::async(std::launch::async, [this, &shared] { return execute(shared, *plain_run_); });
  } else if (!await_plain()) {
    return finish();
  }

  bool exposed_failed = false;
  if (auto st = narrow(exposed_failed); !st.ok())  // an interrupted round is reported, not an error
    return interrupted() ? finish() : Result<BisectReport>(st.error());
  if (!await_plain() || interrupted()) return finish();
  if (candidates_.empty()) PARITY_TRY(judge_final_outputs());  // nothing exposable: judge the outputs
  if (exposed_failed) PARITY_TRY(after_failed_exposure());
  PARITY_TRY(settle_first_divergent());
  if (interrupted()) return finish();
  if (report_.first_divergent) {
    PARITY_TRY(explain_culprit());
  } else if (report_.final_mismatch) {
    report_.notes.push_back(
        "the final outputs differ but no intermediate tensor does: the divergence is in a "
        "graph output computed from inputs directly or inside a skipped subgraph");
  }
  const auto compared = std::count_if(report_.tensors.begin(), report_.tensors.end(),
                                      [](const TensorReport& t) { return t.compared; });
  if (report_.method == "exposed" && static_cast<std::size_t>(compared) < candidates_.size())
    report_.notes.push_back(
        std::to_string(compared) + " of " + std::to_string(candidates_.size()) +
        " typed tensors compared: their values exceed the exposure budget (--batch-bytes, " +
        probe::describe_bytes(options_.exposure_budget_bytes) +
        "), so bisect compared evenly spaced checkpoints and narrowed only where one diverged");
  return finish();
}

}  // namespace

std::vector<int> pick_checkpoints(const std::vector<int>& order, const std::vector<uint64_t>& bytes,
                                  uint64_t budget) {
  uint64_t total = 0;
  for (int i : order) total += bytes[static_cast<std::size_t>(i)];
  if (total <= budget) return order;
  // k evenly spaced checkpoints, the last always among them.
  auto spaced = [&](std::size_t k) {
    std::vector<int> out;
    for (std::size_t j = 1; j <= k; ++j) {
      const std::size_t pos = (j * order.size()) / k - 1;
      if (out.empty() || out.back() != order[pos]) out.push_back(order[pos]);
    }
    return out;
  };
  auto fits = [&](const std::vector<int>& cps) {
    uint64_t sum = 0;
    for (int i : cps) sum += bytes[static_cast<std::size_t>(i)];
    return sum <= budget;
  };
  // The most checkpoints whose own bytes fit (not budget / the largest tensor: one big or unknown
  // tensor would cap every round at a few hundred and add rounds); at least two per round, so
  // every round halves the span or better.
  std::size_t lo = 2, hi = order.size() - 1;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (fits(spaced(mid)))
      lo = mid;
    else
      hi = mid - 1;
  }
  return spaced(lo);
}

const TensorReport* row_named(const std::vector<TensorReport>& tensors, const std::string& name) {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

double Margin::headroom() const {
  return bound_used > 0 ? 1 / bound_used : std::numeric_limits<double>::infinity();
}

std::optional<Margin> closest_match(const std::vector<TensorReport>& tensors) {
  std::optional<Margin> m;
  for (const auto& t : tensors) {
    if (!t.compared || t.verdict != Verdict::match || !t.metrics || !t.metrics->bound_used) continue;
    if (!m || *t.metrics->bound_used > m->bound_used)
      m = Margin{t.name, t.node, t.op_type, *t.metrics->bound_used};
  }
  return m;
}

namespace {

// Error relative to the reference's own scale: comparable across tensors of any magnitude.
double relative_error(const TensorReport& t) {
  if (!t.metrics) return std::numeric_limits<double>::infinity();  // shape/dtype/missing: no scale
  if (t.metrics->nan_mismatch > 0) return std::numeric_limits<double>::infinity();
  return t.metrics->max_abs / std::max(t.metrics->ref_max_abs, kMaxRelFloor);
}

bool is_source(const model::GraphOutline& graph, const std::string& name) {
  if (graph.initializers.count(name)) return true;
  const int p = graph.producer_of(name);
  return p < 0 || is_constant_op(graph.nodes[static_cast<std::size_t>(p)].op_type);
}

// Describes the divergence at `row`: born here or inherited, weight path or first layer.
FirstDivergent describe_divergence(const model::GraphOutline& graph, const std::vector<TensorReport>& tensors,
                                   const TensorReport& row) {
  FirstDivergent fd;
  fd.tensor = row.name;
  fd.node = row.node;
  fd.op_type = row.op_type;
  fd.order = row.order;
  fd.metrics = row.metrics;
  fd.failed_rule = row.failed_rule;
  fd.detail = row.detail;
  const auto& node = graph.nodes[static_cast<std::size_t>(row.order)];
  std::vector<std::string> reads = node.inputs;
  reads.insert(reads.end(), node.outer_inputs.begin(), node.outer_inputs.end());
  bool explained = false, only_sources = true, graph_input = false, inputs_match = true, float_input = false;
  const double own = relative_error(row);
  for (const auto& in : reads) {
    if (in.empty()) continue;
    if (is_source(graph, in)) {  // identical on both sides by construction
      graph_input = graph_input || (!graph.initializers.count(in) && graph.producer_of(in) < 0);
      continue;
    }
    only_sources = false;
    const TensorReport* r = row_named(tensors, in);
    const model::NodeOutput* info = graph.find_tensor(in);
    inputs_match = inputs_match && r && r->compared && r->verdict == Verdict::match;
    float_input = float_input || (info && dtype_is_float(info->dtype));
    if (!r || !r->compared) {
      explained = true;  // an unseen input is no evidence that the inputs match
    } else if (r->verdict == Verdict::mismatch && !(own > kBornGain * relative_error(*r))) {
      explained = true;
    }
  }
  fd.born_here = !explained;
  fd.weight_path = only_sources;
  fd.near_tie = !only_sources && inputs_match && float_input && is_selection_op(row.op_type);
  fd.reads_graph_input = graph_input;
  return fd;
}

}  // namespace

std::optional<FirstDivergent> find_first_divergent(const model::GraphOutline& graph,
                                                   const std::vector<TensorReport>& tensors) {
  const TensorReport* first = nullptr;
  for (const auto& t : tensors)
    if (t.compared && t.verdict == Verdict::mismatch) {
      first = &t;
      break;
    }
  if (!first) return std::nullopt;
  // Walk upstream while the culprit's producer reads a divergent value that explains its error.
  for (int guard = 0; guard < static_cast<int>(graph.nodes.size()) + 1; ++guard) {
    const auto& node = graph.nodes[static_cast<std::size_t>(first->order)];
    const TensorReport* upstream = nullptr;
    for (const auto& in : node.inputs) {
      const TensorReport* r = in.empty() ? nullptr : row_named(tensors, in);
      if (r && r->compared && r->verdict == Verdict::mismatch && r != first &&
          !(relative_error(*first) > kBornGain * relative_error(*r)))
        upstream = r;
    }
    if (!upstream) break;
    first = upstream;
  }
  return describe_divergence(graph, tensors, *first);
}

std::vector<FirstDivergent> find_divergent_candidates(const model::GraphOutline& graph,
                                                      const std::vector<TensorReport>& tensors) {
  std::vector<FirstDivergent> out;
  auto first = find_first_divergent(graph, tensors);
  if (!first) return out;
  out.push_back(*first);
  for (const auto& t : tensors) {
    if (!t.compared || t.verdict != Verdict::mismatch || t.order <= first->order || t.name == first->tensor)
      continue;
    FirstDivergent fd = describe_divergence(graph, tensors, t);
    if (fd.born_here) out.push_back(std::move(fd));
  }
  return out;
}

std::vector<std::string> path_to(const model::GraphOutline& graph, const std::string& tensor) {
  std::vector<std::string> path{tensor};
  std::string current = tensor;
  for (std::size_t guard = 0; guard <= graph.nodes.size(); ++guard) {
    const int p = graph.producer_of(current);
    if (p < 0) break;
    std::string next;
    for (const auto& in : graph.nodes[static_cast<std::size_t>(p)].inputs)
      if (!in.empty() && !graph.initializers.count(in)) {
        next = in;
        break;
      }
    if (next.empty()) break;
    path.push_back(next);
    current = next;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

// The value of an If's condition in the reference's run: a constant, a graph input, or (exposed)
// computed by the reference backend itself.
Result<std::map<std::string, bool>> condition_values(const BisectOptions& options, const fs::path& model,
                                                     const model::GraphFacts& facts,
                                                     const std::vector<const model::FactNode*>& ifs,
                                                     const probe::InputPlan& plan, const fs::path& work,
                                                     int level) {
  std::map<std::string, bool> out;
  std::vector<std::string> computed;
  auto truth = [](const Tensor& t) { return t.numel() == 1 && t.element_as_double(0) != 0; };
  for (const auto* n : ifs) {
    const std::string& cond = n->input(0);
    if (const Tensor* c = facts.constant_value(cond)) {
      out[cond] = truth(*c);
      continue;
    }
    const auto input = std::find_if(plan.samples[0].begin(), plan.samples[0].end(),
                                    [&](const NamedTensor& t) { return t.name == cond; });
    if (input != plan.samples[0].end()) {
      out[cond] = truth(input->tensor);
      continue;
    }
    computed.push_back(cond);
  }
  if (computed.empty()) return out;
  isolate::BackendRunner runner;
  PARITY_ASSIGN_OR_RETURN(
      values, probe::run_exposed(options.reference, model, computed, plan.samples[0], options.limits, work,
                                 "conditions-" + std::to_string(level) + ".onnx", runner));
  for (const auto& t : values) out[t.name] = truth(t.tensor);
  return out;
}

// A top-level Loop with a constant trip count, or a Scan over a static length, unrolled; false
// (with a note) when it cannot be or would exceed the budget of unrolled nodes.
constexpr std::size_t kMaxUnrolledNodes = 20000;

// A node left as it is comes back at every level: its note is said once.
void note_once(std::vector<std::string>& notes, std::string note) {
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
}

Result<bool> unroll(model::ModelRewriter& rewriter, const model::FactNode& n, const model::GraphFacts& facts,
                    std::vector<std::string>& notes) {
  int64_t steps = -1;
  if (n.op_type == "Loop") {
    if (const Tensor* m = facts.constant_value(n.input(0)); m && m->numel() == 1)
      steps = static_cast<int64_t>(m->element_as_double(0));
  } else if (const auto shape = facts.shape_of(n.inputs.empty() ? "" : n.inputs.back());
             shape && !shape->empty()) {
    steps = (*shape)[0];
  }
  if (steps < 1) {
    note_once(notes, n.op_type + " " + n.name + " not unrolled: its " +
                         (n.op_type == "Loop" ? "trip count" : "scan length") +
                         " is not known before it runs");
    return false;
  }
  if (static_cast<std::size_t>(steps) * std::max<std::size_t>(n.subgraph_nodes, 1) > kMaxUnrolledNodes) {
    note_once(notes, n.op_type + " " + n.name + " not unrolled: " + std::to_string(steps) +
                         " iterations of " + std::to_string(n.subgraph_nodes) + " nodes exceed " +
                         std::to_string(kMaxUnrolledNodes));
    return false;
  }
  Status done =
      n.op_type == "Loop" ? rewriter.unroll_loop(n.name, steps) : rewriter.unroll_scan(n.name, steps);
  if (!done.ok()) {
    note_once(notes, n.op_type + " " + n.name + " not unrolled: " + done.error().message);
    return false;
  }
  notes.push_back("unrolled " + n.op_type + " " + n.name + ": " + std::to_string(steps) +
                  " iterations, nodes named " + n.name + "/iter<i>/<node>");
  return true;
}

// Control flow: every top-level If is replaced by the branch the reference takes, and every Loop
// or Scan of known length unrolled, level by level (nested ones surface at the next level), so
// bisect exposes and isolates the nodes inside. The result computes what the original computes for
// these inputs.
Result<fs::path> inline_taken_branches(const BisectOptions& options, const probe::InputPlan& plan,
                                       const fs::path& work, std::vector<std::string>& notes,
                                       const ProgressSink& progress) {
  fs::path model = options.model_path;
  for (int level = 0; level < 16; ++level) {
    PARITY_ASSIGN_OR_RETURN(facts, model::read_graph_facts(model));
    std::vector<const model::FactNode*> ifs, loops;
    for (const auto& n : facts.nodes) {
      if (n.domain.empty() && n.op_type == "If") ifs.push_back(&n);
      if (n.domain.empty() && (n.op_type == "Loop" || n.op_type == "Scan")) loops.push_back(&n);
    }
    PARITY_ASSIGN_OR_RETURN(values, condition_values(options, model, facts, ifs, plan, work, level));
    PARITY_ASSIGN_OR_RETURN(rewriter, model::ModelRewriter::open(model));
    bool changed = false;
    for (const auto* n : loops) {
      PARITY_ASSIGN_OR_RETURN(unrolled, unroll(rewriter, *n, facts, notes));
      changed |= unrolled;
      if (progress && unrolled) progress(notes.back());
    }
    for (const auto* n : ifs) {
      const auto it = values.find(n->input(0));
      if (it == values.end()) continue;
      PARITY_TRY(rewriter.inline_if(n->name, it->second));
      changed = true;
      const std::string note = "inlined If " + n->name + ": " + (it->second ? "then_branch" : "else_branch") +
                               " taken (condition '" + n->input(0) + "' is " +
                               (it->second ? "true" : "false") + " on " + options.reference.label + ")";
      notes.push_back(note);
      if (progress) progress(note);
    }
    if (!changed) break;
    model = work / ("inlined-" + std::to_string(level) + ".onnx");
    PARITY_TRY(rewriter.save(model));
  }
  if (model == options.model_path) return model;
  // The rewrite must compute what the original does on these inputs: checked on the reference.
  isolate::BackendRunner runner;
  backend::BackendSpec spec = options.reference;
  spec.count_nodes = false;
  auto outputs_of = [&](const fs::path& m) {
    backend::RunRequest request;
    request.model_path = m.string();
    request.inputs = plan.samples[0];
    return runner.run(spec, request, options.limits).result;
  };
  auto before = outputs_of(options.model_path);
  auto after = outputs_of(model);
  if (!before.ok() || !after.ok()) return options.model_path;  // the plain runs report it
  for (const auto& want : before->outputs) {
    const auto got = std::find_if(after->outputs.begin(), after->outputs.end(),
                                  [&](const NamedTensor& t) { return t.name == want.name; });
    const Evaluation ev = evaluate_output(got == after->outputs.end() ? nullptr : &*got, want,
                                          default_tolerance(want.tensor.dtype()));
    if (ev.verdict.verdict == Verdict::mismatch) {
      notes.push_back("control flow left as it is: the rewritten graph gives output '" + want.name +
                      "' otherwise on " + options.reference.label + " (" + ev.verdict.detail + ")");
      return options.model_path;
    }
  }
  return model;
}

}  // namespace

Result<BisectReport> run_bisect(const BisectOptions& given, const ProgressSink& progress) {
  PARITY_ASSIGN_OR_RETURN(original, model::inspect_model(given.model_path));
  probe::InputSettings settings = given.inputs;
  settings.samples = 1;
  PARITY_ASSIGN_OR_RETURN(plan, probe::plan_inputs(original, settings));
  PARITY_ASSIGN_OR_RETURN(work, ScratchDir::create("parity-bisect", Stage::write_output));
  BisectOptions options = given;
  if (original.has_control_flow) {
    PARITY_ASSIGN_OR_RETURN(inlined,
                            inline_taken_branches(given, plan, work.path(), options.rewrite_notes, progress));
    options.source_model = given.model_path;
    options.model_path = inlined;
  }
  PARITY_ASSIGN_OR_RETURN(surgery, model::ModelSurgery::open(options.model_path));
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(options.model_path));
  (void)info;
  if (options.target.label == options.reference.label)
    return bad_invocation("the target and the reference are both labelled '" + options.target.label + "'",
                          "give one its own label: LABEL=EP:options");
  auto fault_for = [&](const std::string& env, const std::string& label) {
    return isolate::test_fault_for(env, label);
  };
  PARITY_ASSIGN_OR_RETURN(ref_fault, fault_for(options.test_fault_env, options.reference.label));
  PARITY_ASSIGN_OR_RETURN(target_fault, fault_for(options.test_fault_env, options.target.label));
  PARITY_ASSIGN_OR_RETURN(exposed_fault, fault_for(options.exposed_test_fault_env, options.target.label));
  Bisector b(options, progress, std::move(surgery), std::move(plan), std::move(work), ref_fault, target_fault,
             exposed_fault);
  return b.run();
}

}  // namespace parity::bisect
