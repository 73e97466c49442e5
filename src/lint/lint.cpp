#include "lint/lint.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "backend/browser/ort_web_dist.h"
#include "core/interrupt.h"
#include "core/scratch_dir.h"
#include "core/text.h"
#include "lint/finding_record.h"
#include "model/graph_facts.h"
#include "model/onnx_model.h"

namespace parity::lint {
namespace {

namespace fs = std::filesystem;

// Without --backends, a rule is reported for every EP path it concerns among these.
const std::vector<std::string> kStaticScope{"cpu", "webgpu", "web-wasm", "web-jsep", "web-webgpu"};

// The newest ai.onnx opset each runtime loads, as its own refusal states it (measured with
// tests/models lint_opset_future: "Current official support for domain ai.onnx is till opset 26").
constexpr int64_t kNewestKnownOpset = 26;
constexpr const char* kNewestKnownOpsetRuntime = "ORT 1.30.0";

struct ScopeEntry {
  std::string label, ep, version;
  const BackendCheck* check = nullptr;
};

void say(const probe::ProgressSink& progress, const std::string& line) {
  if (progress) progress(line);
}

bool concerns(const Rule& rule, const std::string& ep) {
  return rule.backends.empty() ||
         std::find(rule.backends.begin(), rule.backends.end(), ep) != rule.backends.end();
}

Affected judge_backend(const Rule& rule, const FindingRecord* record, const ScopeEntry& s) {
  Affected a{s.label, s.ep, s.version, rule.severity, ""};
  if (rule.finding.empty()) {
    a.basis = "no repro recorded";
    return a;
  }
  if (!record) {
    a.basis = "finding " + std::string(rule.finding) + " is not in the findings base";
    return a;
  }
  const VersionVerdict v = verdict_for(*record, s.ep, s.version);
  switch (v.state) {
    case VersionVerdict::State::fails: a.basis = v.basis; break;
    case VersionVerdict::State::passes: {
      a.severity = Severity::info;
      a.basis = v.basis;
      for (const auto& run : record->runs)  // an older failing release of the same path: a fix
        if (run.backend == s.ep && run.fails &&
            (s.version.empty() || compare_versions(run.version, s.version) < 0)) {
          a.basis = "fixed: " + v.basis + ", fails on " + run.version;
          break;
        }
      break;
    }
    case VersionVerdict::State::unchecked:
      a.severity = std::min(rule.severity, Severity::warning);
      a.basis = v.basis + " (parity findings verify --backends " + s.ep + " checks it)";
      break;
  }
  return a;
}

LintHit make_hit(const Rule& rule, const std::vector<Match>& matches) {
  LintHit h;
  h.rule = std::string(rule.id);
  h.severity = rule.severity;
  h.title = std::string(rule.title);
  h.why = std::string(rule.why);
  h.fix = std::string(rule.fix);
  h.finding = std::string(rule.finding);
  for (const auto& m : matches)
    for (const auto& n : m.nodes) h.nodes.push_back(n);
  if (!matches.empty())
    h.detail = matches.front().detail +
               (matches.size() > 1 ? fmt::format(" (and {} more like it)", matches.size() - 1) : "");
  return h;
}

void finish(LintHit& h) {
  if (h.backends.empty()) return;
  h.severity = Severity::info;
  for (const auto& a : h.backends) h.severity = std::max(h.severity, a.severity);
}

// One real session per backend: its version, adapter, placement, refusal, optimized model.
BackendCheck check_backend(backend::BackendSpec spec, const std::vector<NamedTensor>& inputs,
                           const LintOptions& options, const fs::path& scratch,
                           isolate::BackendRunner& runner) {
  BackendCheck c;
  c.label = spec.label;
  c.ep = spec.ep;
  spec.count_nodes = true;
  if (!backend::is_web_backend(spec.ep)) {
    c.optimized_model = scratch / (std::to_string(std::hash<std::string>{}(spec.label)) + ".onnx");
    spec.optimized_model_path = c.optimized_model.string();
  }
  backend::RunRequest request;
  request.model_path = options.model.string();
  request.inputs = inputs;
  const isolate::IsolatedRun run = runner.run(spec, request, options.limits);
  if (!run.result.ok()) {
    c.error = run.result.error();
    if (!fs::exists(c.optimized_model)) c.optimized_model.clear();
    return c;
  }
  c.ran = true;
  c.version = run.result->runtime_version;
  c.adapter = run.result->adapter;
  c.nodes_on_backend = run.result->nodes_on_backend;
  c.nodes_on_cpu = run.result->nodes_on_cpu;
  c.cpu_nodes = run.result->cpu_nodes;
  if (!fs::exists(c.optimized_model)) c.optimized_model.clear();
  return c;
}

// fp16-needs-shader-f16 on one backend: a session that ran the file, or refused it for the
// feature, says more than the file does.
void judge_fp16_live(const Rule& rule, const ScopeEntry& s, Affected& a) {
  if (!s.check) return;
  if (s.check->error && s.check->error->message.find("f16") != std::string::npos) {
    a.severity = Severity::error;
    a.basis = "live: " + first_line(s.check->error->message);
  } else if (s.check->ran && !s.check->adapter.empty()) {
    a.severity = Severity::info;
    a.basis = "live: ran on " + s.check->adapter;
  } else {
    a.severity = rule.severity;
  }
}

// fp16-constant-island against what ORT's optimizer really left (a native session's model).
void confirm_islands(LintHit& h, const std::vector<BackendCheck>& checks) {
  for (const auto& c : checks) {
    if (c.optimized_model.empty()) continue;
    auto optimized = model::read_graph_facts(c.optimized_model);
    if (!optimized.ok()) continue;
    std::size_t surviving = 0;
    for (const auto& name : h.nodes)
      for (const auto& n : optimized->nodes)
        if (n.name == name) {
          ++surviving;
          break;
        }
    const std::string who =
        "ORT" + (c.version.empty() ? std::string() : " " + c.version) + " (" + c.label + " session)";
    h.backends.push_back({"", "", c.version, surviving ? Severity::warning : Severity::info,
                          surviving ? fmt::format("live: {} of {} survive constant folding in {}", surviving,
                                                  h.nodes.size(), who)
                                    : "live: folded by " + who});
    return;
  }
}

// Element types of every value, top level and If/Loop/Scan bodies, for telling shape arithmetic
// from float work. A body declares few types, so an undeclared output is inferred from its op: the
// shape ops' own result types, Cast's `to`, and else the type of the data it passes on.
std::map<std::string, DType> value_types_with_bodies(const model::GraphFacts& facts) {
  // clang-format off
  static const std::set<std::string_view> kInt64{"Shape", "Size", "NonZero", "ArgMax", "ArgMin"};
  static const std::set<std::string_view> kBool{"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                                "Not", "And", "Or", "Xor", "IsNaN", "IsInf"};
  static const std::set<std::string_view> kFollowsInput{
      "Gather", "GatherElements", "Concat", "Unsqueeze", "Squeeze", "Slice", "Reshape", "Identity", "Expand",
      "Tile", "Transpose", "Flatten", "Add", "Sub", "Mul", "Div", "Mod", "Neg", "Abs", "Min", "Max", "Range",
      "ReduceProd", "ReduceSum", "ReduceMin", "ReduceMax", "Sign", "CumSum"};
  // clang-format on
  std::map<std::string, DType> types = facts.value_types;
  std::vector<std::reference_wrapper<const model::FactNode>> all(facts.nodes.begin(), facts.nodes.end());
  all.insert(all.end(), facts.inner_nodes.begin(), facts.inner_nodes.end());
  auto known = [&](const std::string& v) {
    const auto it = types.find(v);
    return it == types.end() ? DType::undefined : it->second;
  };
  // Bodies read outer values and outer nodes read body results (If outputs): a few passes settle it.
  for (bool grew = true; grew;) {
    grew = false;
    for (const model::FactNode& n : all) {
      DType t = DType::undefined;
      if (!n.domain.empty()) continue;
      if (kInt64.count(n.op_type)) {
        t = DType::int64;
      } else if (kBool.count(n.op_type)) {
        t = DType::boolean;
      } else if (n.op_type == "Cast") {
        const auto it = n.attributes.find("to");
        if (it != n.attributes.end())
          t = dtype_from_onnx(static_cast<int32_t>(it->second.i)).value_or(DType::undefined);
      } else if (n.op_type == "Where") {
        t = known(n.input(1));
      } else if (kFollowsInput.count(n.op_type)) {
        t = known(n.input(0));
      }
      if (t == DType::undefined) continue;
      for (const auto& o : n.outputs)
        if (!o.empty() && known(o) == DType::undefined) {
          types[o] = t;
          grew = true;
        }
    }
  }
  return types;
}

// A node whose every output is an integer or bool tensor (shape arithmetic), at the top level or in
// a body; unknown nodes are not.
bool computes_integers_only(const model::GraphFacts& facts, const std::map<std::string, DType>& types,
                            const std::string& node) {
  const auto integer_only = [&](const model::FactNode& n) {
    return !n.outputs.empty() && std::all_of(n.outputs.begin(), n.outputs.end(), [&](const auto& o) {
      const auto it = types.find(o);
      return it != types.end() && it->second != DType::undefined && !dtype_is_float(it->second);
    });
  };
  for (const auto* list : {&facts.nodes, &facts.inner_nodes})
    for (const auto& n : *list)
      if (n.name == node) return integer_only(n);
  return false;
}

void add_live_hits(const model::GraphFacts& facts, const std::vector<BackendCheck>& checks,
                   std::vector<LintHit>& hits) {
  const Rule& fallback = *find_rule("ep-cpu-fallback");
  const Rule& opset = *find_rule("opset-too-new");
  LintHit placed = make_hit(fallback, {});
  LintHit refused = make_hit(opset, {});
  const std::map<std::string, DType> types = value_types_with_bodies(facts);
  for (const auto& c : checks) {
    if (c.error) {
      const std::string& m = c.error->message;
      if (m.find("opset") != std::string::npos || m.find("IR version") != std::string::npos) {
        // ORT's refusal ends with the sentence that matters ("... is till opset 26.").
        const std::size_t said = m.find("Current official support");
        const std::string why = first_line(said == std::string::npos ? m : m.substr(said));
        refused.backends.push_back({c.label, c.ep, c.version, Severity::error, "live: " + why});
        refused.detail = why;
      }
      continue;
    }
    if (backend::runs_on_cpu_kernels(c.ep)) continue;
    if (!c.cpu_nodes.empty()) {
      // ORT keeps shape arithmetic (int64 Shape/Gather/Concat...) on the CPU by design: only nodes
      // that compute float values count as work the EP did not take.
      std::vector<std::string> ops;
      std::size_t shape_nodes = 0, taken = 0;
      for (const auto& [node, op] : c.cpu_nodes) {
        if (computes_integers_only(facts, types, node)) {
          ++shape_nodes;
          continue;
        }
        ++taken;
        if (placed.nodes.size() < 1000) placed.nodes.push_back(node);
        if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
      }
      if (taken == 0) continue;
      const std::string what =
          fmt::format("{} nodes on the CPU ({}){}", taken, fmt::join(ops, ", "),
                      shape_nodes ? fmt::format(", besides {} shape nodes", shape_nodes) : "");
      if (placed.detail.empty()) placed.detail = what;
      placed.backends.push_back({c.label, c.ep, c.version, fallback.severity, "live: " + what});
    } else if (c.nodes_on_cpu > 0) {  // web paths count nodes but do not name them
      const std::string what = fmt::format(
          "{} nodes on the CPU (onnxruntime-web names no nodes, shape nodes included)", c.nodes_on_cpu);
      if (placed.detail.empty()) placed.detail = what;
      placed.backends.push_back({c.label, c.ep, c.version, Severity::info, "live: " + what});
    }
  }
  // The static side of opset-too-new: beyond what any measured runtime loads.
  const auto it = facts.opsets.find("");
  if (refused.backends.empty() && it != facts.opsets.end() && it->second > kNewestKnownOpset) {
    refused.detail = fmt::format("ai.onnx opset {}; {} loads up to {}", it->second, kNewestKnownOpsetRuntime,
                                 kNewestKnownOpset);
    refused.backends.push_back({"", "", "", Severity::error, "static: the model's opset_import"});
  }
  for (LintHit* h : {&refused, &placed})
    if (!h->backends.empty()) {
      finish(*h);
      hits.push_back(std::move(*h));
    }
}

}  // namespace

std::size_t LintReport::count(Severity s) const {
  return static_cast<std::size_t>(
      std::count_if(hits.begin(), hits.end(), [s](const auto& h) { return h.severity == s; }));
}

bool refused_the_model(const BackendCheck& c) {
  return c.error && (c.error->stage == Stage::load_model || c.error->stage == Stage::create_session);
}

Result<LintReport> run_lint(const LintOptions& options, const probe::ProgressSink& progress) {
  PARITY_ASSIGN_OR_RETURN(facts, model::read_graph_facts(options.model));
  LintReport report;
  report.model = options.model.string();

  std::vector<FindingRecord> findings;
  if (auto read = read_findings(options.findings_dir); read.ok())
    findings = std::move(*read);
  else
    report.notes.push_back("no findings base (" + read.error().message + "): versions are not judged");
  // A rule's evidence is the record that names it (its own folder first, if several do), else its
  // folder's record (two rules can share one repro: slice-negative-step and its JSEP twin).
  auto record_of = [&](const Rule& rule) -> const FindingRecord* {
    const FindingRecord* found = nullptr;
    for (const auto& r : findings)
      if (r.rule == rule.id && (!found || r.id == rule.finding)) found = &r;
    if (!found)
      for (const auto& r : findings)
        if (!rule.finding.empty() && r.id == rule.finding) found = &r;
    return found;
  };

  // Live checks, one session per requested backend.
  std::optional<ScratchDir> scratch;
  if (options.live && !options.backends.empty()) {
    PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(options.model));
    auto plan = probe::plan_inputs(info, options.inputs);
    PARITY_ASSIGN_OR_RETURN(dir, ScratchDir::create("parity-lint", Stage::prepare_inputs));
    scratch.emplace(std::move(dir));
    if (!plan.ok()) {
      report.notes.push_back("no session ran: " + plan.error().message + " (" + plan.error().hint + ")");
      report.unchecked.push_back("no inputs could be planned: " + first_line(plan.error().message));
    } else {
      std::unique_ptr<isolate::BackendRunner> own;
      isolate::BackendRunner& runner = isolate::runner_or(options.runner, own);
      for (const auto& spec : options.backends) {
        if (interrupted()) break;
        say(progress, "lint: session on " + spec.label);
        BackendCheck check = check_backend(spec, plan->samples.front(), options, scratch->path(), runner);
        if (interrupted()) break;  // a session cut short is no check (it would read as a failed one)
        report.checks.push_back(std::move(check));
      }
      report.live = true;
      // Every session failing on the same random inputs says more about the inputs than about any
      // backend (Silero v5 takes its 8 kHz branch and fails everywhere): nothing was checked.
      const auto& cs = report.checks;
      if (!interrupted() && !cs.empty() &&
          std::none_of(cs.begin(), cs.end(), [](const auto& c) { return c.ran; }) &&
          std::none_of(cs.begin(), cs.end(), refused_the_model))
        for (const auto& c : cs)
          report.unchecked.push_back(c.label + ": " + first_line(c.error ? c.error->message : "not run"));
    }
  }

  std::vector<ScopeEntry> scope;
  if (options.backends.empty()) {
    for (const auto& ep : kStaticScope) scope.push_back({ep, ep, "", nullptr});
  } else {
    for (std::size_t i = 0; i < options.backends.size(); ++i) {
      const auto& spec = options.backends[i];
      ScopeEntry s{spec.label, spec.ep, "", i < report.checks.size() ? &report.checks[i] : nullptr};
      if (s.check) s.version = s.check->version;
      // A web path's release is known without a session: it is the bundle the spec names.
      if (s.version.empty() && backend::is_web_backend(spec.ep))
        if (auto dist = backend::browser::locate_ort_web(spec.ort_web); dist.ok()) s.version = dist->version;
      scope.push_back(std::move(s));
    }
  }
  for (const auto& s : scope) report.scope.push_back(s.label);

  for (const Rule& rule : rules()) {
    if (!rule.match) continue;
    const std::vector<Match> matches = rule.match(facts);
    if (matches.empty()) continue;
    LintHit hit = make_hit(rule, matches);
    if (!rule.backends.empty()) {
      for (const auto& s : scope) {
        if (!concerns(rule, s.ep)) continue;
        const FindingRecord* record = record_of(rule);
        if (record) {
          hit.finding = record->id;
          hit.evidence = record->folder.string();
        }
        Affected a = judge_backend(rule, record, s);
        if (rule.id == "fp16-needs-shader-f16") judge_fp16_live(rule, s, a);
        hit.backends.push_back(std::move(a));
      }
      if (hit.backends.empty()) continue;  // none of the requested backends is concerned
    } else if (rule.id == "fp16-constant-island") {
      confirm_islands(hit, report.checks);
    }
    finish(hit);
    report.hits.push_back(std::move(hit));
  }
  add_live_hits(facts, report.checks, report.hits);
  std::stable_sort(report.hits.begin(), report.hits.end(),
                   [](const LintHit& a, const LintHit& b) { return a.severity > b.severity; });
  return report;
}

}  // namespace parity::lint
