#include "conformance/outcome.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "backend/backend.h"
#include "core/text.h"

namespace parity::conformance {
namespace {

bool contains_ci(std::string_view text, std::string_view needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

std::string_view stage_label(Stage s) { return to_string(s); }

// ORT wraps a kernel's own words in "Non-zero status code returned while running X node. Name:''
// Status Message: file.cc:NN Function <words>": keep the node and the words, which say what broke.
std::string core_message(const std::string& message) {
  std::string line = first_line(message);
  const std::string status = "Status Message: ";
  const auto at = line.rfind(status);
  if (at == std::string::npos) return line;
  std::string node;
  if (const auto r = line.find("while running "); r != std::string::npos && r < at) {
    const auto end = line.find('.', r);
    node = line.substr(r + 14, end == std::string::npos ? std::string::npos : end - r - 14) + ": ";
  }
  std::string words = line.substr(at + status.size());
  // Drop "file.cc:NN Function " when present.
  if (const auto sp = words.find(' '); sp != std::string::npos && words.find(".cc:") < sp) {
    const auto sp2 = words.find(' ', sp + 1);
    if (sp2 != std::string::npos) words = words.substr(sp2 + 1);
  }
  return node + words;
}

Outcome from_error(const backend::BackendSpec& spec, const Error& e) {
  Outcome o;
  o.error = e;
  const std::string where = std::string(stage_label(e.stage)) + ": ";
  o.reason = where + core_message(e.message);
  switch (e.kind) {
    case ErrorKind::crashed:
      o.state = State::crashed;
      o.reason = where + "worker died on " + signal_name(e.signal) +
                 (e.message.empty() ? "" : " (" + first_line(e.message) + ")");
      return o;
    case ErrorKind::timeout: o.state = State::timeout; return o;
    case ErrorKind::unavailable:
      // A capability the adapter lacks is a property of this machine, not of the EP's code.
      // (ort_guard and the browser backends both put "adapter lacks a feature" in such hints.)
      if (contains_ci(e.message, "does not support it") || contains_ci(e.hint, "adapter lacks a feature")) {
        o.state = State::skipped;
        o.reason = "adapter lacks a feature: " + core_message(e.message);
        return o;
      }
      o.state = State::not_supported;
      // Native ORT names the disabled fallback; onnxruntime-web finds the node has no provider.
      if (contains_ci(e.message, "fallback to CPU EP has been explicitly disabled") ||
          (contains_ci(e.message, "Provider type for") && contains_ci(e.message, "is not set")))
        o.reason = "EP refused: some node cannot run on " + spec.ep + " (CPU fallback is off)";
      return o;
    default: break;
  }
  // ORT names an opset it does not know at session creation: the suite is newer than the runtime.
  if (contains_ci(e.message, "opset") &&
      (contains_ci(e.message, "not supported") || contains_ci(e.message, "under development") ||
       contains_ci(e.message, "is till opset") || contains_ci(e.message, "unsupported"))) {
    o.state = State::skipped;
    o.reason = "opset beyond the runtime: " + first_line(e.message);
    return o;
  }
  o.state = State::error;
  return o;
}

}  // namespace

std::string_view to_string(State s) {
  switch (s) {
    case State::passed: return "passed";
    case State::failed: return "failed";
    case State::crashed: return "crashed";
    case State::timeout: return "timeout";
    case State::error: return "error";
    case State::not_supported: return "not-supported";
    case State::skipped: return "skipped";
    case State::flaky: return "flaky";
  }
  return "error";
}

std::optional<State> state_from_string(std::string_view name) {
  for (State s : kAllStates)
    if (to_string(s) == name) return s;
  return std::nullopt;
}

bool is_bad(State s) {
  return s == State::failed || s == State::crashed || s == State::timeout || s == State::error ||
         s == State::flaky;
}

Outcome recheck_verdict(Outcome first, Outcome second) {
  if (first.state == second.state) {
    Outcome o = first;
    o.rechecked = true;
    o.duration_ms += second.duration_ms;
    o.setup_ms += second.setup_ms;
    if (o.run_cpu_ms >= 0 && second.run_cpu_ms >= 0) o.run_cpu_ms += second.run_cpu_ms;
    o.session_run_ms += second.session_run_ms;
    o.attempts = {std::move(first), std::move(second)};
    return o;
  }
  Outcome o;
  o.state = State::flaky;
  o.rechecked = true;
  o.reason = std::string(to_string(first.state)) + ", then " + std::string(to_string(second.state)) +
             " on a fresh re-run: " + first.reason + (second.reason.empty() ? "" : " | " + second.reason);
  o.duration_ms = first.duration_ms + second.duration_ms;
  o.setup_ms = first.setup_ms + second.setup_ms;
  o.runtime_version = first.runtime_version.empty() ? second.runtime_version : first.runtime_version;
  o.adapter = first.adapter.empty() ? second.adapter : first.adapter;
  o.nodes_on_backend = first.nodes_on_backend;
  o.nodes_on_cpu = first.nodes_on_cpu;
  o.attempts.push_back(std::move(first));
  o.attempts.push_back(std::move(second));
  return o;
}

Tolerance tolerance_for_dtype(DType dtype, const Tolerance& float_tol) {
  if (dtype_is_float(dtype)) return float_tol;
  return Tolerance{};  // exact, as numpy.testing.assert_array_equal in ONNX's runner
}

Outcome classify(const backend::BackendSpec& spec, const Result<backend::RunResult>& run,
                 const std::vector<NamedTensor>& expected, const Tolerance& float_tol) {
  if (!run.ok()) return from_error(spec, run.error());
  const backend::RunResult& r = run.value();
  Outcome o;
  o.nodes_on_backend = r.nodes_on_backend;
  o.nodes_on_cpu = r.nodes_on_cpu;
  o.runtime_version = r.runtime_version;
  o.adapter = r.adapter;
  o.setup_ms = r.setup_ms;
  o.run_cpu_ms = r.run_cpu_ms;
  o.session_run_ms = r.run_ms;
  if (!backend::runs_on_cpu_kernels(spec.ep) && r.nodes_on_backend == 0) {
    o.state = State::not_supported;
    o.reason = "not exercised: " + spec.ep + " ran 0 kernels (" +
               (r.nodes_on_cpu >= 0 ? std::to_string(r.nodes_on_cpu) : std::string("?")) +
               " on CPU; a graph folded at session creation runs none)";
    return o;
  }
  o.state = State::passed;
  double worst = -1;
  for (const NamedTensor& e : expected) {
    const auto it = std::find_if(r.outputs.begin(), r.outputs.end(),
                                 [&](const NamedTensor& a) { return a.name == e.name; });
    const NamedTensor* actual = it == r.outputs.end() ? nullptr : &*it;
    const Evaluation ev = evaluate_output(actual, e, tolerance_for_dtype(e.tensor.dtype(), float_tol));
    if (ev.verdict.verdict == Verdict::mismatch) {
      o.state = State::failed;
      o.failed_rule = ev.verdict.failed_rule;
      o.output = e.name;
      o.reason = actual ? e.name + ": " + ev.verdict.detail : ev.verdict.detail;
      o.comparison = ev.comparison;
      return o;
    }
    const Comparison cmp = ev.comparison.value_or(Comparison{});
    const double m = std::isnan(cmp.max_abs) ? INFINITY : cmp.max_abs;
    if (m > worst) {
      worst = m;
      o.output = e.name;
      o.comparison = cmp;
    }
  }
  if (backend::runs_on_cpu_kernels(spec.ep) && r.nodes_on_backend == 0)
    o.reason = "graph folded at session creation: 0 kernels ran (outputs still checked)";
  else if (!backend::runs_on_cpu_kernels(spec.ep) && r.nodes_on_cpu > 0)  // fallback on: what the EP left
    o.reason = "partly on CPU: " + std::to_string(r.nodes_on_cpu) + " kernel(s) on CPU, " +
               std::to_string(r.nodes_on_backend) + " on " + spec.ep;
  return o;
}

}  // namespace parity::conformance
