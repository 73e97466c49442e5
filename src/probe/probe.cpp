#include "probe/probe.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/interrupt.h"
#include "model/tensor_proto.h"
#include "parity/version.h"

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

OutputReport judge_output(const ProbeOptions& options, const NamedTensor* actual, const NamedTensor& expected,
                          int sample, std::optional<double> noise_max_abs) {
  OutputReport r;
  r.name = expected.name;
  r.worst_sample = sample;
  r.reference_stats = compute_stats(expected.tensor);
  r.tolerance = tolerance_for(options, expected.name, expected.tensor.dtype());
  if (noise_max_abs && std::isfinite(*noise_max_abs)) {
    r.noise_max_abs = noise_max_abs;
    r.tolerance.noise_abs = kNoiseMargin * *noise_max_abs;
  }
  const Evaluation ev = evaluate_output(actual, expected, r.tolerance);
  r.verdict = ev.verdict.verdict;
  r.failed_rule = ev.verdict.failed_rule;
  r.detail = ev.verdict.detail;
  r.comparison = ev.comparison;
  if (actual) {
    r.dtype = actual->tensor.dtype();
    r.shape = actual->tensor.shape();
    r.stats = compute_stats(actual->tensor);
  }
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
  return std::all_of(backends.begin(), backends.end(), [&](const auto& b) {
    return b.is_noise || b.status == BackendStatus::ok ||
           (allow_inconclusive && b.status == BackendStatus::inconclusive);
  });
}

Tolerance tolerance_for(const ProbeOptions& options, const std::string& name, DType dtype) {
  if (auto it = options.output_tolerance.find(name); it != options.output_tolerance.end()) return it->second;
  if (options.tolerance) return *options.tolerance;
  return default_tolerance(dtype);
}

Result<ProbeReport> run_probe(const ProbeOptions& options, const ProgressSink& progress) {
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(options.model_path));
  PARITY_ASSIGN_OR_RETURN(plan, plan_inputs(info, options.inputs));

  // Reference first, then the noise backend, then every other backend once, in the order given.
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
  for (const auto& [name, tol] : options.output_tolerance)
    if (std::none_of(info.outputs.begin(), info.outputs.end(), [&](const auto& o) { return o.name == name; }))
      return bad_invocation("--tol names '" + name + "', which is not an output of the model");

  std::vector<std::optional<backend::TestFault>> faults;
  for (const auto& b : order) {
    auto f = isolate::test_fault_for(options.test_fault_env, b.label);
    if (!f.ok()) return f.error();
    faults.push_back(*f);
  }

  ProbeReport report;
  report.parity_version = std::string(kParityVersion);
  report.model = info;
  report.inputs = plan.inputs;
  report.samples = static_cast<int>(plan.samples.size());
  report.seed = options.inputs.seed;
  report.reference = options.reference.label;
  if (options.noise_from) report.noise_from = options.noise_from->label;

  std::unique_ptr<isolate::BackendRunner> own_runner;
  isolate::BackendRunner& runner = isolate::runner_or(options.runner, own_runner);
  std::vector<std::vector<NamedTensor>> reference_outputs;  // per sample
  // Per reference output: why it carries no signal in any sample ("" once one sample has one).
  std::map<std::string, std::string> uninformative;
  // Per sample: the noise backend's max_abs against the reference, per output.
  std::vector<std::map<std::string, double>> noise;
  std::optional<Error> reference_error;
  for (std::size_t bi = 0; bi < order.size() && !interrupted(); ++bi) {
    const auto& spec = order[bi];
    BackendReport br;
    br.name = spec.label;
    br.ep = spec.ep;
    br.is_reference = bi == 0;
    br.is_noise = options.noise_from && bi == 1;
    const bool noise_listed =
        br.is_noise && std::any_of(options.backends.begin(), options.backends.end(),
                                   [&](const auto& b) { return b.label == spec.label; });
    if (noise_listed) br.is_noise = false;  // also a backend under test: it gates the exit status
    std::vector<OutputReport> worst;
    for (std::size_t s = 0; s < plan.samples.size(); ++s) {
      say(spec.label + ": sample " + std::to_string(s + 1) + "/" + std::to_string(plan.samples.size()) +
          " ...");
      backend::RunRequest req;
      req.model_path = options.model_path.string();
      req.inputs = plan.samples[s];
      isolate::WorkerLaunch launch{options.worker_exe, faults[bi], {}};
      auto run = runner.run(spec, req, options.limits, launch);
      br.wall_ms += run.wall_ms;
      if (!run.result.ok()) {
        br.error = run.result.error();
        br.status = status_from_error(*br.error);
        br.worker_log = run.worker_log;
        break;
      }
      auto& result = run.result.value();
      br.ort_version = result.runtime_version;
      br.adapter = result.adapter;
      br.nodes_on_backend = result.nodes_on_backend;
      br.nodes_on_cpu = result.nodes_on_cpu;
      br.create_ms = std::max(br.create_ms, result.create_ms);
      br.run_ms = std::max(br.run_ms, result.run_ms);
      if (s == 0) {
        br.notes = result.notes;
        br.properties = result.properties;
      }
      if (options.save_io) {
        const auto set = *options.save_io / ("test_data_set_" + std::to_string(s));
        if (br.is_reference) {
          PARITY_TRY(save_tensors(set, "input_", plan.samples[s]));
          PARITY_TRY(save_tensors(set, "output_", result.outputs));
        }
        PARITY_TRY(save_tensors(set / spec.label, "output_", result.outputs));
      }
      if (br.is_reference) {
        for (const auto& out : result.outputs) {
          OutputReport r;
          r.name = out.name;
          r.dtype = out.tensor.dtype();
          r.shape = out.tensor.shape();
          r.stats = compute_stats(out.tensor);
          r.reference_stats = r.stats;
          r.tolerance = tolerance_for(options, out.name, out.tensor.dtype());
          const std::string why = uninformative_reason(out.tensor, r.stats);
          if (s == 0)
            uninformative[out.name] = why;
          else if (why.empty())
            uninformative[out.name].clear();
          if (s == 0) worst.push_back(std::move(r));
        }
        reference_outputs.push_back(std::move(result.outputs));
        continue;
      }
      if (reference_error) continue;
      const auto& expected = reference_outputs[s];
      for (std::size_t o = 0; o < expected.size(); ++o) {
        const NamedTensor* actual = nullptr;
        for (const auto& a : result.outputs)
          if (a.name == expected[o].name) actual = &a;
        std::optional<double> floor;
        if (!br.is_reference && options.noise_from && bi > 1 && s < noise.size())
          if (auto it = noise[s].find(expected[o].name); it != noise[s].end()) floor = it->second;
        OutputReport r = judge_output(options, actual, expected[o], static_cast<int>(s), floor);
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
    if (br.is_reference && br.error) reference_error = br.error;
    if (!br.error && !br.is_reference && reference_error) {
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
        if (o.verdict == Verdict::match) o.inconclusive = uninformative[o.name];
      if (br.status == BackendStatus::ok &&
          std::any_of(br.outputs.begin(), br.outputs.end(),
                      [](const auto& o) { return !o.inconclusive.empty(); }))
        br.status = BackendStatus::inconclusive;
    }
    say(spec.label + ": " + std::string(to_string(br.status)) + " in " + fmt_ms(br.wall_ms));
    report.backends.push_back(std::move(br));
  }
  return report;
}

}  // namespace parity::probe
