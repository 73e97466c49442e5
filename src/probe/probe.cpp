#include "probe/probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_io.h"
#include "core/interrupt.h"
#include "model/tensor_proto.h"
#include "parity/version.h"
#include "probe/precision.h"
#include "probe/recurrent_state.h"
#include "probe/reference_settings.h"

namespace parity::probe {
namespace {

Error bad_invocation(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

std::string fmt_ms(double ms) {
  char buf[32];
  if (ms >= 1000)
    std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000);
  else
    std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  return buf;
}

// Orders samples of one output: a mismatch beats a match, then the larger max_abs.
bool worse_than(const OutputReport& a, const OutputReport& b) {
  if (a.verdict != b.verdict) return a.verdict == Verdict::mismatch;
  const double ma = a.comparison ? a.comparison->max_abs : 0, mb = b.comparison ? b.comparison->max_abs : 0;
  return ma > mb || (std::isnan(ma) && !std::isnan(mb));
}

// `state`: the output is recurrent state fed back as an input (recurrent_state.h; see evaluate_output).
OutputReport judge_output(const ProbeOptions& options, const NamedTensor* actual, const NamedTensor& expected,
                          int sample, std::optional<double> noise_max_abs, std::string_view arithmetic,
                          bool state) {
  OutputReport r;
  r.name = expected.name;
  r.worst_sample = sample;
  r.reference_stats = compute_stats(expected.tensor);
  r.tolerance = tolerance_for(options, expected.name, expected.tensor.dtype(), arithmetic);
  if (noise_max_abs && std::isfinite(*noise_max_abs)) {
    r.noise_max_abs = noise_max_abs;
    r.tolerance.noise_abs = kNoiseMargin * *noise_max_abs;
  }
  const Evaluation ev = evaluate_output(actual, expected, r.tolerance, state);
  r.verdict = ev.verdict.verdict;
  r.failed_rule = ev.verdict.failed_rule;
  r.detail = ev.verdict.detail;
  r.comparison = ev.comparison;
  // Regions say where a wrong output is wrong. On a matching one they would only restate what the
  // verdict forgave (a GPU's tiny values where the CPU flushes to exact zeros: PP-OCRv4 det).
  if (actual && ev.comparison && r.verdict == Verdict::mismatch)
    r.regions = region_map(actual->tensor, expected.tensor, *ev.comparison, r.tolerance);
  if (actual) {
    r.dtype = actual->tensor.dtype();
    r.shape = actual->tensor.shape();
    r.stats = compute_stats(actual->tensor);
    if (options.keep_outputs) r.tensor = actual->tensor;
  }
  if (options.keep_outputs) r.reference_tensor = expected.tensor;
  return r;
}

Status save_tensors(const std::filesystem::path& dir, const char* prefix,
                    const std::vector<NamedTensor>& tensors) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return make_error(ErrorKind::io, Stage::write_output,
                      "cannot create " + dir.string() + ": " + ec.message());
  for (std::size_t i = 0; i < tensors.size(); ++i)
    PARITY_TRY(
        model::write_tensor_proto(dir / (std::string(prefix) + std::to_string(i) + ".pb"), tensors[i]));
  return ok_status();
}

}  // namespace

std::string_view to_string(BackendStatus s) {
  switch (s) {
    case BackendStatus::ok: return "ok";
    case BackendStatus::mismatch: return "mismatch";
    case BackendStatus::error: return "error";
    case BackendStatus::crashed: return "crashed";
    case BackendStatus::timeout: return "timeout";
    case BackendStatus::oom: return "oom";
    case BackendStatus::unavailable: return "unavailable";
    case BackendStatus::inconclusive: return "inconclusive";
  }
  return "error";
}

std::optional<BackendStatus> status_from_string(std::string_view name) {
  for (BackendStatus s :
       {BackendStatus::ok, BackendStatus::mismatch, BackendStatus::error, BackendStatus::crashed,
        BackendStatus::timeout, BackendStatus::oom, BackendStatus::unavailable, BackendStatus::inconclusive})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

BackendStatus status_from_error(const Error& e) {
  switch (e.kind) {
    case ErrorKind::crashed: return BackendStatus::crashed;
    case ErrorKind::timeout: return BackendStatus::timeout;
    case ErrorKind::oom: return BackendStatus::oom;
    case ErrorKind::unavailable: return BackendStatus::unavailable;
    default: return BackendStatus::error;
  }
}

bool ProbeReport::all_ok(bool allow_inconclusive) const {
  return !interrupted && std::all_of(backends.begin(), backends.end(), [&](const auto& b) {
    return b.is_noise || b.status == BackendStatus::ok ||
           (allow_inconclusive && b.status == BackendStatus::inconclusive);
  });
}

Tolerance tolerance_for(const ProbeOptions& options, const std::string& name, DType dtype,
                        std::string_view arithmetic) {
  if (auto it = options.output_tolerance.find(name); it != options.output_tolerance.end()) return it->second;
  if (options.tolerance) return *options.tolerance;
  Tolerance own = default_tolerance_in(dtype, arithmetic);
  if (!dtype_is_float(dtype)) return own;
  if (options.judge_as) {
    const Tolerance computed = default_tolerance(*options.judge_as);  // only ever loosens
    if (computed.scale_rtol > own.scale_rtol) own = computed;
  }
  if (options.min_cosine) own.min_cosine = options.min_cosine;
  if (options.drift_cosine) own.drift_cosine = std::max(options.drift_cosine, own.drift_cosine);
  return own;
}

namespace {

void say(const ProgressSink& progress, const std::string& line) {
  if (progress) progress(line);
}

// Reference first, then the noise backend, then every other backend once, in the order given.
Result<std::vector<backend::BackendSpec>> backend_order(const ProbeOptions& options) {
  std::vector<backend::BackendSpec> order{options.reference};
  std::set<std::string> labels{options.reference.label};
  if (options.noise_from) {
    if (options.noise_from->label == options.reference.label)
      return bad_invocation("--noise-from names the reference itself ('" + options.reference.label + "')",
                            "give a second implementation that should be right too, e.g. "
                            "noopt=cpu:opt=disabled or web-wasm");
    order.push_back(*options.noise_from);
    labels.insert(options.noise_from->label);
  }
  for (const auto& b : options.backends) {
    if (options.noise_from && b.label == options.noise_from->label) continue;  // runs once, as noise
    if (b.label == options.reference.label) continue;
    if (!labels.insert(b.label).second)
      return bad_invocation("backend '" + b.label + "' is listed twice",
                            "give the second one its own label: LABEL=EP:options");
    order.push_back(b);
  }
  return order;
}

// The test fault of each backend in `order`, from options.test_fault_env.
Result<std::vector<std::optional<backend::TestFault>>> faults_for(
    const ProbeOptions& options, const std::vector<backend::BackendSpec>& order) {
  std::vector<std::optional<backend::TestFault>> faults;
  for (const auto& b : order) {
    auto f = isolate::test_fault_for(options.test_fault_env, b.label);
    if (!f.ok()) return f.error();
    faults.push_back(*f);
  }
  return faults;
}

// What the backends after the reference are judged against, gathered as the probe goes.
struct ProbeState {
  std::vector<std::vector<NamedTensor>> reference_outputs;  // per sample
  // Per reference output: why it carries no signal in any sample ("" once one sample has one).
  std::map<std::string, std::string> uninformative;
  // Per sample: the noise backend's max_abs against the reference, per output.
  std::vector<std::map<std::string, double>> noise;
  std::optional<Error> reference_error;
  // Every sample's outputs of each mismatching row (by index in the order), kept while the
  // reference's optimizer is a suspect (optimizer_suspect) to judge them again.
  std::map<std::size_t, std::vector<std::vector<NamedTensor>>> suspects;
  std::optional<Error> save_io_error;  // the first --save-io write that failed; no more are tried
  std::vector<FedInput> fed;           // the inputs as fed (first sample), for recurrent_state.h
};

// True when the reference's own optimizer may be what a mismatch measures: its lossy rewrites are
// on (the user's reference set opt= itself; cli::reference_settings turns them off otherwise).
bool optimizer_suspect(const ProbeOptions& options) {
  return !lossy_rewrites_off(options.reference) && !options.reference_model;
}

// The ops the settings of cli::reference_settings act on: where a model holds none, they change
// nothing and the report need not name them.
bool holds_quantization(const model::ModelInfo& info) {
  for (const char* op : {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "MatMulInteger"})
    if (info.op_counts.count(op)) return true;
  return false;
}

// What the backend's run tells about it: versions, placement, and the first sample's times.
void record_run(const backend::RunResult& result, BackendReport& br) {
  br.ort_version = result.runtime_version;
  br.adapter = result.adapter;
  br.nodes_on_backend = result.nodes_on_backend;
  br.nodes_on_cpu = result.nodes_on_cpu;
  br.create_ms = result.create_ms;
  br.run_ms = result.run_ms;  // of the first sample (the others ran on the warm session)
  br.notes = result.notes;
  br.properties = result.properties;
}

// --save-io's record at the folder's top: it tells a later run (core/out_folder) that the folder
// is Parity's own, so a re-run may overwrite it and a user's folder may not be.
Status mark_save_io_folder(const std::filesystem::path& dir, const std::filesystem::path& model) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return make_error(
        ErrorKind::io, Stage::write_output,
        "the --save-io folder " + dir.string() + " was not written: it could not be made: " + ec.message(),
        "give a folder that can be written");
  const nlohmann::json record = {{"schema", "parity.save_io/1"},
                                 {"model", model.string()},
                                 {"layout",
                                  "test_data_set_N/input_K.pb and output_K.pb (the reference's), "
                                  "test_data_set_N/LABEL/output_K.pb (each backend's)"}};
  if (auto w = write_text_file(dir / "io.json", record.dump(1) + "\n"); !w.ok()) {
    Error e = w.error();
    e.message = "the --save-io folder " + dir.string() + " was not written: " + e.message;
    return e;
  }
  return ok_status();
}

// --save-io: sample `s`'s outputs under the backend's label; the reference also writes the
// inputs and its outputs at the top of the sample's folder.
Status save_io(const std::filesystem::path& dir, const BackendReport& br, std::size_t s,
               const std::vector<NamedTensor>& inputs, const std::vector<NamedTensor>& outputs) {
  const auto set = dir / ("test_data_set_" + std::to_string(s));
  if (br.is_reference) {
    PARITY_TRY(save_tensors(set, "input_", inputs));
    PARITY_TRY(save_tensors(set, "output_", outputs));
  }
  return save_tensors(set / safe_file_name(br.name), "output_", outputs);
}

// Keeps the reference's outputs of sample `s`; the first sample also gives its report rows.
void take_reference(const ProbeOptions& options, std::size_t s, std::vector<NamedTensor> outputs,
                    ProbeState& state, std::vector<OutputReport>& worst) {
  for (const auto& out : outputs) {
    OutputReport r;
    r.name = out.name;
    r.dtype = out.tensor.dtype();
    r.shape = out.tensor.shape();
    r.stats = compute_stats(out.tensor);
    r.reference_stats = r.stats;
    r.tolerance = tolerance_for(options, out.name, out.tensor.dtype());
    if (options.keep_outputs && s == 0) r.tensor = r.reference_tensor = out.tensor;
    const std::string why = uninformative_reason(out.tensor, r.stats);
    if (s == 0)
      state.uninformative[out.name] = why;
    else if (why.empty())
      state.uninformative[out.name].clear();
    if (s == 0) worst.push_back(std::move(r));
  }
  state.reference_outputs.push_back(std::move(outputs));
}

// Judges sample `s` of backend `bi` against the reference's; `worst` keeps the worst sample per
// output. The noise backend (bi == 1 with --noise-from) records its max_abs as the others' floor.
void compare_sample(const ProbeOptions& options, std::size_t bi, std::string_view arithmetic, std::size_t s,
                    const std::vector<NamedTensor>& outputs, ProbeState& state,
                    std::vector<OutputReport>& worst) {
  const auto& expected = state.reference_outputs[s];
  auto& noise = state.noise;
  for (std::size_t o = 0; o < expected.size(); ++o) {
    const NamedTensor* actual = nullptr;
    for (const auto& a : outputs)
      if (a.name == expected[o].name) actual = &a;
    std::optional<double> floor;
    if (options.noise_from && bi > 1 && s < noise.size())
      if (auto it = noise[s].find(expected[o].name); it != noise[s].end()) floor = it->second;
    const bool state_output = is_recurrent_state(expected[o].name, expected[o].tensor.dtype(),
                                                 expected[o].tensor.shape(), state.fed);
    OutputReport r =
        judge_output(options, actual, expected[o], static_cast<int>(s), floor, arithmetic, state_output);
    if (options.noise_from && bi == 1 && r.comparison) {
      if (noise.size() <= s) noise.resize(s + 1);
      noise[s][expected[o].name] = r.comparison->max_abs;
    }
    if (worst.size() <= o)
      worst.push_back(std::move(r));
    else if (worse_than(r, worst[o]))
      worst[o] = std::move(r);
  }
}

// The backend's status once every sample ran: a failed reference fails the rest, a mismatch in
// any output is a mismatch, and a match on an output with no signal is inconclusive.
void finish_backend(const ProbeOptions& options, ProbeState& state, std::vector<OutputReport> worst,
                    BackendReport& br) {
  if (br.is_reference && br.error) state.reference_error = br.error;
  if (!br.error && !br.is_reference && state.reference_error) {
    br.status = BackendStatus::error;
    br.error =
        make_error(ErrorKind::error, Stage::compare,
                   "reference backend '" + options.reference.label + "' failed; nothing to compare against",
                   "fix or change the reference (--reference)");
    br.error->backend = br.name;
  }
  br.outputs = std::move(worst);
  if (!br.error && std::any_of(br.outputs.begin(), br.outputs.end(),
                               [](const auto& o) { return o.verdict == Verdict::mismatch; }))
    br.status = BackendStatus::mismatch;
  if (!br.is_reference && !br.error) {
    for (auto& o : br.outputs)
      if (o.verdict == Verdict::match) o.inconclusive = state.uninformative[o.name];
    if (br.status == BackendStatus::ok && std::any_of(br.outputs.begin(), br.outputs.end(),
                                                      [](const auto& o) { return !o.inconclusive.empty(); }))
      br.status = BackendStatus::inconclusive;
  }
}

// The request of one backend: every sample on one session, as an application runs (one worker,
// one session creation).
backend::RunRequest request_for(const ProbeOptions& options, const InputPlan& plan, bool is_reference) {
  backend::RunRequest req;
  req.model_path =
      (is_reference && options.reference_model ? *options.reference_model : options.model_path).string();
  req.inputs = plan.samples[0];
  req.more_inputs.assign(plan.samples.begin() + 1, plan.samples.end());
  return req;
}

struct BackendRun {
  isolate::IsolatedRun run;
  double start_ms = 0;  // from the first run's start
};

// Runs every backend of `order` and returns their runs in that order. Native backends run at once,
// each in its own worker; browser backends take turns in one lane, so page loads do not compete
// for the machine (and the stall watch measures the page, not its neighbours). With
// one_at_a_time, one lane for all. Progress is said here, on the caller's thread.
std::vector<BackendRun> run_backends(const ProbeOptions& options, const InputPlan& plan,
                                     const std::vector<backend::BackendSpec>& order,
                                     const std::vector<std::optional<backend::TestFault>>& faults,
                                     isolate::BackendRunner& runner, const ProgressSink& progress) {
  std::vector<std::vector<std::size_t>> lanes;
  std::optional<std::size_t> browser_lane;
  for (std::size_t bi = 0; bi < order.size(); ++bi) {
    if (options.one_at_a_time && !lanes.empty()) {
      lanes[0].push_back(bi);
    } else if (backend::is_web_backend(order[bi].ep)) {
      if (!browser_lane) {
        browser_lane = lanes.size();
        lanes.emplace_back();
      }
      lanes[*browser_lane].push_back(bi);
    } else {
      lanes.push_back({bi});
    }
  }
  const std::size_t n = plan.samples.size();
  const std::string what = n == 1 ? "running" : std::to_string(n) + " samples on one session";
  if (lanes.size() > 1) {
    std::string names;
    for (const auto& b : order) names += (names.empty() ? "" : ", ") + b.label;
    say(progress, names + ": " + what + ", " + std::to_string(lanes.size()) + " at once ...");
  }
  std::vector<BackendRun> runs(order.size());
  const auto t0 = std::chrono::steady_clock::now();
  auto run_lane = [&](const std::vector<std::size_t>& lane) {
    for (std::size_t bi : lane) {
      if (interrupted()) return;
      if (lanes.size() == 1) say(progress, order[bi].label + ": " + what + " ...");
      isolate::WorkerLaunch launch{options.worker_exe, faults[bi], {}};
      runs[bi].start_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      runs[bi].run = runner.run(order[bi], request_for(options, plan, bi == 0), options.limits, launch);
    }
  };
  std::vector<std::future<void>> others;
  for (std::size_t l = 1; l < lanes.size(); ++l)
    others.push_back(std::async(std::launch::async, run_lane, std::cref(lanes[l])));
  run_lane(lanes[0]);
  for (auto& f : others) f.get();
  return runs;
}

// Judges backend `bi` of the order (0: the reference; 1: the noise backend with --noise-from) from
// its run of every sample; a failed run fails the backend.
Result<BackendReport> judge_backend(const ProbeOptions& options, const InputPlan& plan,
                                    const backend::BackendSpec& spec, std::size_t bi, BackendRun backend_run,
                                    ProbeState& state) {
  if (state.fed.empty())  // the inputs as fed, for telling recurrent state from results
    for (std::size_t i = 0; i < plan.inputs.size() && !plan.samples.empty() && i < plan.samples[0].size();
         ++i)
      state.fed.push_back(
          {plan.inputs[i].info.name, plan.samples[0][i].tensor.dtype(), plan.samples[0][i].tensor.shape()});
  auto& run = backend_run.run;
  BackendReport br;
  br.name = spec.label;
  br.ep = spec.ep;
  br.is_reference = bi == 0;
  br.is_noise = options.noise_from && bi == 1;
  const bool noise_listed = br.is_noise && std::any_of(options.backends.begin(), options.backends.end(),
                                                       [&](const auto& b) { return b.label == spec.label; });
  if (noise_listed) br.is_noise = false;  // also a backend under test: it gates the exit status
  std::vector<OutputReport> worst;
  br.wall_ms = run.wall_ms;
  br.start_ms = backend_run.start_ms;
  br.peak_rss_bytes = run.peak_rss_bytes;
  if (!run.result.ok()) {
    br.error = run.result.error();
    br.status = status_from_error(*br.error);
    br.worker_log = run.worker_log;
  } else {
    auto& result = run.result.value();
    record_run(result, br);
    // A backend that computes in reduced arithmetic by design (CUDA's TF32) is judged at that
    // precision, unless the user gave a rule: otherwise every CUDA run of a real network "fails".
    const std::string_view arithmetic = br.is_reference ? "" : judged_arithmetic(options.reference, spec);
    if (!arithmetic.empty() && !options.tolerance && options.output_tolerance.empty())
      br.notes.push_back(arithmetic_note(arithmetic));
    for (std::size_t s = 0; s < plan.samples.size(); ++s) {
      auto& outputs = s == 0 ? result.outputs : result.more_outputs[s - 1];
      // A --save-io folder that cannot be written loses only itself: the probe is still judged and reported.
      if (options.save_io && !state.save_io_error)
        if (auto w = save_io(*options.save_io, br, s, plan.samples[s], outputs); !w.ok()) {
          state.save_io_error = w.error();
          state.save_io_error->message =
              "the --save-io folder " + options.save_io->string() + " was not written: " + w.error().message;
        }
      if (br.is_reference)
        take_reference(options, s, std::move(outputs), state, worst);
      else if (!state.reference_error)
        compare_sample(options, bi, arithmetic, s, outputs, state, worst);
    }
  }
  finish_backend(options, state, std::move(worst), br);
  if (br.status == BackendStatus::mismatch && !br.is_noise && optimizer_suspect(options) && run.result.ok()) {
    auto& result = run.result.value();
    auto& kept = state.suspects[bi];
    kept.push_back(std::move(result.outputs));
    for (auto& more : result.more_outputs) kept.push_back(std::move(more));
  }
  return br;
}

std::string short_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Reruns the reference at opt=disabled when a row mismatches a reference the user set with its
// optimizer on. Where the reference moves beyond the bound between its own opt levels, the report
// says so with the spread, and a row that matches the unoptimized reference is inconclusive:
// the reference's optimizer, not the backend, changed the numbers.
Status weigh_reference_optimizer(const ProbeOptions& options, const InputPlan& plan,
                                 const std::vector<backend::BackendSpec>& order,
                                 isolate::BackendRunner& runner, ProbeState& state, ProbeReport& report,
                                 const ProgressSink& progress) {
  backend::BackendSpec unopt = options.reference;
  unopt.opt_level = "disabled";
  unopt.label = options.reference.label + "-opt-disabled";
  unopt.count_nodes = false;
  say(progress, options.reference.label + ": a row mismatches; rerunning the reference at opt=disabled ...");
  isolate::WorkerLaunch launch{options.worker_exe, std::nullopt, {}};
  auto run = runner.run(unopt, request_for(options, plan, true), options.limits, launch);
  if (!run.result.ok()) return ok_status();  // nothing measured: the rows stand as judged
  auto& result = run.result.value();
  std::vector<std::vector<NamedTensor>> unopt_outputs{std::move(result.outputs)};
  for (auto& more : result.more_outputs) unopt_outputs.push_back(std::move(more));
  if (unopt_outputs.size() != state.reference_outputs.size()) return ok_status();

  // The spread: the unoptimized reference judged against the reference, by the rows' own rules.
  ProbeState against_ref;
  against_ref.reference_outputs = state.reference_outputs;
  against_ref.fed = state.fed;
  std::vector<OutputReport> spread;
  for (std::size_t s = 0; s < unopt_outputs.size(); ++s)
    compare_sample(options, 2, "", s, unopt_outputs[s], against_ref, spread);
  const auto moved = std::find_if(spread.begin(), spread.end(), [](const auto& o) {
    return o.verdict == Verdict::mismatch && o.comparison;
  });
  if (moved == spread.end()) return ok_status();
  report.reference_spread =
      "the reference's optimizer changes the result: " + options.reference.label +
      " at opt=" + options.reference.opt_level + " vs opt=disabled, output '" + moved->name + "' max_abs " +
      short_value(moved->comparison->max_abs) +
      (moved->comparison->cosine ? ", cosine " + std::to_string(*moved->comparison->cosine) : std::string()) +
      " (never a verdict against a backend; --reference " + options.reference.ep +
      ":opt=disabled judges by the model as written)";

  ProbeState against_unopt;
  against_unopt.reference_outputs = std::move(unopt_outputs);
  against_unopt.fed = state.fed;
  for (auto& [bi, samples] : state.suspects) {
    if (bi >= report.backends.size() || bi >= order.size()) continue;
    auto& br = report.backends[bi];
    std::vector<OutputReport> alt;
    for (std::size_t s = 0; s < samples.size() && s < against_unopt.reference_outputs.size(); ++s)
      compare_sample(options, 2, judged_arithmetic(options.reference, order[bi]), s, samples[s],
                     against_unopt, alt);
    bool explained = true;
    for (auto& o : br.outputs) {
      if (o.verdict != Verdict::mismatch) continue;
      const auto a = std::find_if(alt.begin(), alt.end(), [&](const auto& r) { return r.name == o.name; });
      if (a == alt.end() || a->verdict != Verdict::match || !a->comparison) {
        explained = false;
        continue;
      }
      o.reference_spread = "matches " + options.reference.label + " at opt=disabled (max_abs " +
                           short_value(a->comparison->max_abs) + "): the reference's optimizer moved it";
    }
    if (explained) br.status = BackendStatus::inconclusive;
  }
  state.suspects.clear();
  return ok_status();
}

// With several samples, the reference row shows for each output the sample the other rows show:
// the worst one over every other row (worse_than), the first sample when none differs. Its
// statistics then sit beside the targets' "(ref ...)" of that very sample.
void show_reference_at_worst_sample(const ProbeOptions& options, const ProbeState& state,
                                    ProbeReport& report) {
  if (report.backends.empty() || !report.backends[0].is_reference || state.reference_outputs.size() < 2)
    return;
  for (auto& out : report.backends[0].outputs) {
    const OutputReport* worst = nullptr;
    for (const auto& b : report.backends)
      if (!b.is_reference && !b.error)
        for (const auto& o : b.outputs)
          if (o.name == out.name && (!worst || worse_than(o, *worst))) worst = &o;
    if (!worst || worst->worst_sample == out.worst_sample) continue;
    const auto s = static_cast<std::size_t>(worst->worst_sample);
    if (s >= state.reference_outputs.size()) continue;
    for (const auto& t : state.reference_outputs[s]) {
      if (t.name != out.name) continue;
      out.worst_sample = worst->worst_sample;
      out.stats = out.reference_stats = compute_stats(t.tensor);
      if (options.keep_outputs) out.tensor = out.reference_tensor = t.tensor;
    }
  }
}

}  // namespace

Result<ProbeReport> run_probe(const ProbeOptions& options, const ProgressSink& progress) {
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(options.model_path));
  if (options.inputs.samples > 1 && !options.inputs.load_io)
    say(progress, "preparing " + std::to_string(options.inputs.samples) + " input samples ...");
  PARITY_ASSIGN_OR_RETURN(plan, plan_inputs(info, options.inputs));
  PARITY_ASSIGN_OR_RETURN(order, backend_order(options));
  for (const auto& [name, tol] : options.output_tolerance)
    if (std::none_of(info.outputs.begin(), info.outputs.end(), [&](const auto& o) { return o.name == name; }))
      return bad_invocation("--tol names '" + name + "', which is not an output of the model");
  PARITY_ASSIGN_OR_RETURN(faults, faults_for(options, order));

  ProbeReport report;
  report.parity_version = std::string(kParityVersion);
  report.model = info;
  report.inputs = plan.inputs;
  report.samples = static_cast<int>(plan.samples.size());
  report.seed = options.inputs.seed;
  report.reference = options.reference.label;
  if (holds_quantization(info)) report.reference_settings = lossy_rewrites_note(options.reference);
  if (options.noise_from) report.noise_from = options.noise_from->label;

  std::unique_ptr<isolate::BackendRunner> own_runner;
  isolate::BackendRunner& runner = isolate::runner_or(options.runner, own_runner);
  auto runs = run_backends(options, plan, order, faults, runner, progress);
  if (interrupted()) {
    // A run cut short is no verdict, and nor is one judged against a cut-short reference: say
    // which runs had ended, and judge none.
    report.interrupted = true;
    for (std::size_t bi = 0; bi < order.size(); ++bi) {
      const auto& r = runs[bi].run.result;
      const bool ended =
          r.ok() || (r.error().kind != ErrorKind::interrupted && r.error().message != "not run");
      (ended ? report.finished : report.unfinished).push_back(order[bi].label);
    }
    return report;
  }
  ProbeState state;
  if (options.save_io)
    if (auto w = mark_save_io_folder(*options.save_io, options.model_path); !w.ok())
      state.save_io_error = w.error();
  for (std::size_t bi = 0; bi < order.size() && !interrupted(); ++bi) {
    PARITY_ASSIGN_OR_RETURN(br, judge_backend(options, plan, order[bi], bi, std::move(runs[bi]), state));
    say(progress, order[bi].label + ": " + std::string(to_string(br.status)) + " in " + fmt_ms(br.wall_ms));
    report.backends.push_back(std::move(br));
  }
  if (!state.suspects.empty() && !interrupted())
    PARITY_TRY(weigh_reference_optimizer(options, plan, order, runner, state, report, progress));
  show_reference_at_worst_sample(options, state, report);
  report.save_io_error = state.save_io_error;
  return report;
}

}  // namespace parity::probe
