#include "conformance/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "core/interrupt.h"
#include "isolate/isolated_runner.h"
#include "parity/version.h"

namespace parity::conformance {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs every data set of one test on one backend; the first data set that does not pass decides.
Outcome run_one(const ConformanceOptions& options, isolate::BackendRunner& runner, const TestCase& tc,
                const backend::BackendSpec& spec, bool fresh) {
  if (!tc.skip_reason.empty()) {
    Outcome o;
    o.state = State::skipped;
    o.reason = tc.skip_reason;
    return o;
  }
  const Tolerance tol = tolerance_for_test(options, tc.test.name);
  // Checked when the options are built (run_conformance), so a bad value never gets here.
  const auto chosen = isolate::test_fault_for(options.test_fault_env, spec.label);
  const std::optional<backend::TestFault> fault = chosen.ok() ? *chosen : std::nullopt;
  Outcome last;
  double total_ms = 0, setup_ms = 0;
  for (const DataSet& ds : tc.data_sets) {
    backend::RunRequest req;
    req.model_path = (tc.test.dir / "model.onnx").string();
    req.inputs = ds.inputs;
    req.fresh = fresh;
    for (const auto& e : ds.expected) req.output_names.push_back(e.name);
    isolate::WorkerLaunch launch{options.worker_exe, std::nullopt, {}};
    if (fault && !(fault->first_only && fresh)) launch.test_fault = fault;
    isolate::IsolatedRun run = runner.run(spec, req, options.limits, launch);
    total_ms += run.wall_ms;
    last = classify(spec, run.result, ds.expected, tol);
    setup_ms += run.setup_ms;  // from the runner: a failed run's setup counts too
    if (last.state != State::passed) break;
  }
  last.duration_ms = total_ms;
  last.setup_ms = setup_ms;
  return last;
}

}  // namespace

int ConformanceReport::count(std::size_t b, State state) const {
  return static_cast<int>(std::count_if(tests.begin(), tests.end(), [&](const TestReport& t) {
    return b < t.results.size() && t.results[b].state == state;
  }));
}

Tolerance tolerance_for_test(const ConformanceOptions& options, const std::string& name) {
  for (const auto& [glob, tol] : options.test_tolerance)
    if (matches_any(name, {glob})) return tol;
  return options.tolerance;
}

Result<ConformanceReport> run_conformance(const ConformanceOptions& options,
                                          const ConformanceProgress& progress) {
  if (options.backends.empty())
    return make_error(ErrorKind::bad_input, Stage::parse_args, "no backend to run",
                      "pass --backends cpu,webgpu");
  std::set<std::string> labels;
  for (const auto& b : options.backends)
    if (!labels.insert(b.label).second)
      return make_error(ErrorKind::bad_input, Stage::parse_args, "backend '" + b.label + "' is listed twice",
                        "give the second one its own label: LABEL=EP:options");
  for (const auto& b : options.backends)
    if (auto f = isolate::test_fault_for(options.test_fault_env, b.label); !f.ok()) return f.error();
  const auto t0 = Clock::now();
  PARITY_ASSIGN_OR_RETURN(found, discover_tests(options.suite_dir, options.filters));

  ConformanceReport report;
  report.parity_version = std::string(kParityVersion);
  report.suite = options.suite_dir.string();
  report.filters = options.filters;
  report.tolerance = options.tolerance;
  report.jobs = std::max(1, options.jobs);
  for (const auto& b : options.backends)
    report.backends.push_back({b.label, b.ep, b.ort_lib, b.allow_fallback, {}, {}});

  // Test data is read up front (small for node tests) so workers only spawn and compare.
  std::vector<TestCase> cases;
  cases.reserve(found.size());
  for (const auto& t : found) cases.push_back(load_test_case(t));
  report.tests.resize(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto& tr = report.tests[i];
    tr.name = cases[i].test.name;
    tr.op = cases[i].op;
    tr.ops = cases[i].ops;
    tr.opset = cases[i].opset;
    tr.results.resize(options.backends.size());
  }

  std::unique_ptr<isolate::BackendRunner> own_runner;
  isolate::BackendRunner& runner = isolate::runner_or(options.runner, own_runner);
  const std::size_t nb = options.backends.size();
  std::mutex mu;  // guards `done`, the report's backend infos and progress calls
  std::size_t done = 0, total = cases.size() * nb;
  std::size_t run_done = 0;                          // pairs that really spawned workers, for the ETA
  std::vector<char> finished(cases.size() * nb, 0);  // first-pass cells with an outcome
  double run_seconds_total = 0;

  // Runs the cells `todo` (test-major indices test * nb + backend) on the jobs; `finish` turns
  // each new outcome into the report's (the first pass stores it, the re-check compares).
  auto run_cells = [&](const std::vector<std::size_t>& todo, bool fresh,
                       const std::function<Outcome(std::size_t, Outcome)>& finish) {
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      for (;;) {
        const std::size_t n = next.fetch_add(1);
        if (n >= todo.size() || interrupted()) return;
        const std::size_t k = todo[n], ti = k / nb, bi = k % nb;
        Outcome o = run_one(options, runner, cases[ti], options.backends[bi], fresh);
        if (interrupted()) return;  // cut short: no outcome (a re-check keeps the first pass's)
        std::lock_guard<std::mutex> lock(mu);
        if (!fresh) finished[k] = 1;
        ++done;
        if (cases[ti].skip_reason.empty()) {
          ++run_done;
          run_seconds_total += o.duration_ms / 1000;
        }
        auto& info = report.backends[bi];
        if (info.runtime_version.empty() && !o.runtime_version.empty())
          info.runtime_version = o.runtime_version;
        if (info.adapter.empty() && !o.adapter.empty()) info.adapter = o.adapter;
        Outcome verdict = finish(k, std::move(o));
        if (progress) {
          std::string line;
          if (is_bad(verdict.state) && (!fresh || verdict.state == State::flaky))
            line = cases[ti].test.name + " " + options.backends[bi].label + ": " +
                   std::string(to_string(verdict.state)) + " (" + verdict.reason + ")";
          // Remaining pairs cost what the finished ones did on average, spread over the jobs.
          double eta = -1;
          if (run_done > 0)
            eta = run_seconds_total / static_cast<double>(run_done) * static_cast<double>(total - done) /
                  static_cast<double>(report.jobs);
          progress(done, total, eta, line);
        }
        report.tests[ti].results[bi] = std::move(verdict);
      }
    };
    std::vector<std::thread> threads;
    const std::size_t n_threads =
        std::min<std::size_t>(static_cast<std::size_t>(report.jobs), std::max<std::size_t>(todo.size(), 1));
    for (std::size_t i = 0; i < n_threads; ++i) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  };

  std::vector<std::size_t> all(total);
  for (std::size_t k = 0; k < total; ++k) all[k] = k;
  run_cells(all, false, [](std::size_t, Outcome o) { return o; });

  // The re-check: every cell that ran and did not pass runs once more from a fresh page (browser
  // backends) or worker, so a verdict that depends on what ran before shows as flaky instead of
  // passing for either attempt.
  if (options.recheck && !interrupted()) {
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < all.size(); ++k) {
      const State st = report.tests[k / nb].results[k % nb].state;
      if (st != State::passed && st != State::skipped) again.push_back(k);
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      total += again.size();
    }
    run_cells(again, true, [&](std::size_t k, Outcome o) {
      return recheck_verdict(report.tests[k / nb].results[k % nb], std::move(o));
    });
  }
  report.wall_s = seconds_since(t0);
  report.tests_planned = cases.size();
  if (interrupted()) {
    report.interrupted = true;
    std::vector<TestReport> whole;
    for (std::size_t ti = 0; ti < cases.size(); ++ti)
      if (std::all_of(finished.begin() + static_cast<std::ptrdiff_t>(ti * nb),
                      finished.begin() + static_cast<std::ptrdiff_t>((ti + 1) * nb),
                      [](char f) { return f; }))
        whole.push_back(std::move(report.tests[ti]));
    report.tests = std::move(whole);
  }
  return report;
}

}  // namespace parity::conformance
