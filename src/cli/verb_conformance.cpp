// `parity conformance`: the ONNX backend test suite on any backend and ONNX Runtime version.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "conformance/diff.h"
#include "conformance/runner.h"
#include "core/file_io.h"
#include "core/parallel_for.h"
#include "core/terminal_text.h"
#include "probe/input_plan.h"
#include "report/conformance_document.h"
#include "report/conformance_json.h"

namespace parity::cli {
namespace {

struct ConformanceArgs {
  CommonOptions common;
  std::string suite = conformance::kDefaultSuiteDir;
  std::vector<std::string> filters, tols;
  std::string backends = "cpu,webgpu";
  int jobs = 0;
  std::optional<double> atol, rtol;
  std::string expect_path, write_expect_path;
  ReportFiles report_files, diff_report_files;
  bool list = false;
  bool no_recheck = false;
  // diff
  std::string diff_a, diff_b;
  std::vector<std::string> pairs;
};

std::string fmt_duration(double s) {
  char buf[32];
  if (s < 0) return "?";
  if (s >= 60)
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  return buf;
}

Result<conformance::Expectations> read_expectations(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(ErrorKind::io, Stage::load_model, "cannot read " + path);
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return usage_error(path + " is not JSON");
  auto e = conformance::expectations_from_json(j);
  if (!e.ok()) e.error().message = path + ": " + e.error().message;
  return e;
}

Result<conformance::ConformanceOptions> build_options(
    const ConformanceArgs& a, const std::optional<conformance::Expectations>& expect) {
  conformance::ConformanceOptions o;
  o.suite_dir = a.suite;
  o.filters = a.filters;
  // With expectations and no filter, run exactly the tests the expectations name.
  if (o.filters.empty() && expect)
    for (const auto& [test, per_backend] : *expect) o.filters.push_back(test);
  PARITY_ASSIGN_OR_RETURN(backends, parse_backend_list(a.backends, a.common.defaults()));
  o.backends = std::move(backends);
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;
  if (a.atol) o.tolerance.atol = *a.atol;
  if (a.rtol) o.tolerance.rtol = *a.rtol;
  PARITY_ASSIGN_OR_RETURN(per_test, parse_tolerance_list(a.tols, "GLOB=ATOL,RTOL"));
  o.test_tolerance = std::move(per_test);
  o.recheck = !a.no_recheck;
  if (const char* fault = std::getenv("PARITY_TEST_FAULT")) o.test_fault_env = fault;
  o.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(usable_cores());
  return o;
}

Result<VerbOutput> run_list(const ConformanceArgs& a) {
  PARITY_ASSIGN_OR_RETURN(tests, conformance::discover_tests(a.suite, a.filters));
  VerbOutput out;
  for (const auto& t : tests) out.text += t.name + "\n";
  std::fprintf(stderr, "%zu tests\n", tests.size());
  return out;
}

// Writes --write-expect; kExitFinding (and nothing written) when a state is flaky.
Result<int> write_expectations(const ConformanceArgs& a, const conformance::ConformanceReport& report) {
  std::size_t flaky = 0;
  for (const auto& t : report.tests)
    for (std::size_t b = 0; b < t.results.size(); ++b)
      if (t.results[b].state == conformance::State::flaky) {
        std::fprintf(stderr, "parity conformance: %s on %s is flaky: %s\n", terminal_safe(t.name).c_str(),
                     report.backends[b].label.c_str(), terminal_safe(t.results[b].reason).c_str());
        ++flaky;
      }
  if (flaky > 0) {
    std::fprintf(stderr,
                 "parity conformance: %zu flaky test(s): %s not written (an expectation must be "
                 "deterministic)\n",
                 flaky, a.write_expect_path.c_str());
    return kExitFinding;
  }
  const auto j = conformance::expectations_to_json(
      report, "states recorded by parity conformance --write-expect; edit only with a reason");
  PARITY_TRY(write_text_file(a.write_expect_path, j.dump(2) + "\n"));
  return kExitOk;
}

// The exit code: broken expectations when --expect was given, else any bad state.
int exit_code_of(const ConformanceArgs& a, const conformance::ConformanceReport& report,
                 const std::optional<conformance::Expectations>& expect) {
  if (expect) {
    const auto broken = conformance::check_expectations(report, *expect);
    for (const auto& line : broken)
      std::fprintf(stderr, "parity conformance: EXPECTATION BROKEN: %s\n", terminal_safe(line).c_str());
    if (!broken.empty()) {
      std::fprintf(stderr, "parity conformance: %zu expectation(s) broken (%s)\n", broken.size(),
                   a.expect_path.c_str());
      return kExitFinding;
    }
    std::fprintf(stderr, "parity conformance: all %zu expected tests as recorded\n", expect->size());
    return kExitOk;
  }
  for (std::size_t b = 0; b < report.backends.size(); ++b)
    for (conformance::State s : conformance::kAllStates)
      if (conformance::is_bad(s) && report.count(b, s) > 0) return kExitFinding;
  return kExitOk;
}

Result<VerbOutput> run(const ConformanceArgs& a) {
  if (a.list) return run_list(a);
  std::optional<conformance::Expectations> expect;
  if (!a.expect_path.empty()) {
    PARITY_ASSIGN_OR_RETURN(e, read_expectations(a.expect_path));
    expect = std::move(e);
  }
  PARITY_ASSIGN_OR_RETURN(options, build_options(a, expect));

  conformance::ConformanceProgress progress;
  // A tick at most every 5 s keeps a CI log readable; bad outcomes are always shown.
  auto last_tick = std::make_shared<std::chrono::steady_clock::time_point>();
  if (!a.common.quiet) {
    progress = [last_tick](std::size_t done, std::size_t total, double eta, const std::string& line) {
      const auto now = std::chrono::steady_clock::now();
      const bool tick = now - *last_tick >= std::chrono::seconds(5) || done == total;
      if (!line.empty())
        std::fprintf(stderr, "parity: [%zu/%zu] %s\n", done, total, terminal_safe(line).c_str());
      else if (tick)
        std::fprintf(stderr, "parity: [%zu/%zu] ETA %s\n", done, total, fmt_duration(eta).c_str());
      if (tick || !line.empty()) *last_tick = now;
    };
  }
  PARITY_ASSIGN_OR_RETURN(report, conformance::run_conformance(options, progress));
  if (report.tests_planned == 0) {
    std::string filters;
    for (const auto& f : a.filters) filters += (filters.empty() ? "--filter '" : "', '") + f;
    return nothing_to_do("conformance",
                         "no test of the suite matches " +
                             (filters.empty() ? std::string("the expectations") : filters + "'") +
                             " ('--list' shows what a filter selects)");
  }
  int code = exit_code_of(a, report, expect);
  if (!a.write_expect_path.empty() && report.interrupted) {
    std::fprintf(stderr, "parity conformance: interrupted: %s not written (expectations need every test)\n",
                 a.write_expect_path.c_str());
  } else if (!a.write_expect_path.empty()) {
    PARITY_ASSIGN_OR_RETURN(written, write_expectations(a, report));
    if (written != kExitOk) code = written;
  }
  VerbOutput out{report::conformance_summary(report), report::conformance_to_json(report), 1, code};
  if (a.report_files.wanted())
    add_report_documents(out, a.report_files, report::conformance_document(report));
  return out;
}

Result<VerbOutput> run_diff(const ConformanceArgs& a) {
  PARITY_ASSIGN_OR_RETURN(ra, report::read_conformance_file(a.diff_a));
  PARITY_ASSIGN_OR_RETURN(rb, report::read_conformance_file(a.diff_b));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& p : a.pairs) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
      return usage_error("--pair " + p + ": expects A_LABEL=B_LABEL");
    pairs.emplace_back(p.substr(0, eq), p.substr(eq + 1));
  }
  PARITY_ASSIGN_OR_RETURN(d, conformance::diff_reports(ra, rb, pairs));
  VerbOutput out{conformance::diff_table(d), nullptr, 2, d.regressions() > 0 ? kExitFinding : kExitOk};
  if (a.diff_report_files.wanted())
    add_report_documents(out, a.diff_report_files, report::conformance_diff_document(d, a.diff_a, a.diff_b));
  return out;
}

}  // namespace

Verb conformance_verb() {
  return {
      "conformance", "run the ONNX backend test suite on every backend and tabulate, per op, what passes",
      false, [](CLI::App& cmd) -> VerbRunner {
        auto args = std::make_shared<ConformanceArgs>();
        args->common.allow_fallback = false;  // test the EP itself: see the description
        args->common.timeout_s = 120;
        cmd.footer(
            "Runs every test of an ONNX backend test suite (model.onnx + test_data_set_N/input_K.pb, "
            "output_K.pb) on each backend, each (test, backend) in its own worker process, and compares "
            "the outputs with the expected ones under ONNX's default tolerance (float outputs: "
            "|a - e| <= 1e-7 + 1e-3*|e|; other types exact).\n\n"
            "States: passed; failed (the rule and metrics that failed); crashed; timeout; error (the backend "
            "returned an error); not-supported (EP refused the graph or is unavailable, or ran 0 kernels of "
            "it: "
            "'not exercised', never 'passed'); skipped (unreadable data such as sequences, or a feature the "
            "adapter lacks such as shader-f16); flaky (see below).\n"
            "Re-check: every test that did not pass (and was not skipped) runs once more, browser backends "
            "in a freshly loaded page; a state that changes is 'flaky', with both attempts in --json "
            "('attempts'), and counts as a failure: investigate it, do not retry it away. --no-recheck "
            "skips this second pass.\n"
            "CPU fallback is OFF by default for non-CPU backends: a test the EP cannot run whole is "
            "not-supported, so 'passed' means the EP computed it (ORT's profiler counts the kernels). "
            "--fallback (or webgpu:fallback=on) judges partial placements too.\n"
            "Exit status: 0 nothing failed (or every --expect expectation holds), 1 a test failed/crashed/"
            "timed out/errored/was flaky (or an expectation broke), 2 bad invocation.\n\n"
            "Examples:\n"
            "  parity conformance --backends cpu,webgpu --json r.json --markdown r.md\n"
            "  parity conformance --backends web-wasm,web-jsep,web-webgpu --jobs 2   (onnxruntime-web in "
            "Chromium)\n"
            "  parity conformance --filter 'test_resize*' --filter 'test_layer_norm*' --backends webgpu\n"
            "  parity conformance --backends "
            "new=cpu,old=cpu:ort-lib=third_party/ort-1.29.0/lib/libonnxruntime.so.1\n"
            "  parity conformance --expect tests/fixtures/conformance/expected_subset.json\n"
            "  parity conformance diff before.json after.json        # exit 1 if a test regressed");
        cmd.require_subcommand(0, 1);
        cmd.add_option("--suite", args->suite, "folder of ONNX backend tests (test_*/model.onnx)")
            ->capture_default_str();
        cmd.add_option("-f,--filter", args->filters,
                       "run tests whose name matches GLOB (repeatable), e.g. 'test_resize*'");
        cmd.add_option("-b,--backends", args->backends,
                       "comma-separated backend specs ([LABEL=]EP[:KEY=VALUE]...)")
            ->capture_default_str();
        cmd.add_option("-j,--jobs", args->jobs,
                       "workers at once (default: one per core this process may use)");
        cmd.add_option("--atol", args->atol, "absolute tolerance for float outputs (default 1e-7, as ONNX)");
        cmd.add_option("--rtol", args->rtol, "relative tolerance for float outputs (default 1e-3, as ONNX)");
        cmd.add_option("--tol", args->tols,
                       "tolerance for tests matching GLOB, GLOB=ATOL,RTOL (repeatable; first match wins)");
        add_report_options(cmd, args->report_files,
                           "the summary per backend, every failure with its reason, and a per-op grid of "
                           "pass/fail counts per backend and version");
        cmd.add_option(
            "--expect", args->expect_path,
            "check states against FILE (test -> backend -> state); runs only its tests unless --filter");
        cmd.add_option("--write-expect", args->write_expect_path,
                       "record this run's states as an expectations FILE");
        cmd.add_flag("--list", args->list, "list the tests --suite/--filter select, run nothing");
        cmd.add_flag("--no-recheck", args->no_recheck,
                     "do not re-run tests that did not pass (no 'flaky' verdicts; faster, less sure)");
        add_common_options(cmd, args->common);

        CLI::App* diff =
            cmd.add_subcommand("diff", "list tests whose state changed between two --json results");
        diff->description(
            "Compares two parity.conformance/1 files test by test on the backends they share (or --pair).\n"
            "A regression is passed -> anything else, or a good state -> failed/crashed/timeout/error.\n"
            "Exit status: 0 no regression, 1 a test regressed, 2 bad invocation.\n\n"
            "Example: parity conformance diff ort129.json ort130.json --pair old=cpu --html diff.html");
        diff->add_option("a", args->diff_a, "the earlier result (--json FILE)")->required();
        diff->add_option("b", args->diff_b, "the later result")->required();
        diff->add_option("--pair", args->pairs,
                         "compare backend A_LABEL of the first file with B_LABEL of the second (repeatable)");
        add_report_options(*diff, args->diff_report_files,
                           "every test whose state changed, regressions first and coloured");
        return [args, diff] {
          return diff->parsed() ? emit("conformance diff", "", run_diff(*args))
                                : emit("conformance", args->common.json_path, run(*args));
        };
      }};
}

}  // namespace parity::cli
