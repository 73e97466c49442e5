#include "sweep/manifest_builder.h"

#include <map>

#include "core/sha256.h"
#include "model/onnx_model.h"
#include "parity/version.h"
#include "sweep/ladder.h"

namespace parity::sweep {
namespace {

std::map<std::string, std::string> as_map(const backend::KeyValues& kv) { return {kv.begin(), kv.end()}; }

manifest::Runtime runtime_of(const backend::BackendSpec& s) {
  manifest::Runtime r;
  r.ort_lib = s.ort_lib;
  r.ort_web = s.ort_web;
  r.fallback = s.allow_fallback;
  r.adapter = s.webgpu_adapter;
  r.threads = s.intra_op_threads;
  r.max_memory_bytes = s.max_memory_bytes;
  r.count_nodes = s.count_nodes;
  r.browser = s.browser;
  r.browser_args = s.browser_args;
  r.log_level = s.log_level;
  r.check_features = s.check_features;
  r.vulkan_faults = s.vulkan_faults;
  return r;
}

Result<manifest::SweepSetup> setup_of(const SweepPlan& plan) {
  manifest::SweepSetup s;
  s.reference.ep = plan.reference.ep;
  s.reference.graph_optimization = plan.reference.opt_level;
  s.reference.provider_options = as_map(plan.reference.provider_options);
  s.reference.session_options = as_map(plan.reference.session_config);
  s.reference.runtime = runtime_of(plan.reference);
  const probe::InputSettings& in = plan.inputs;
  s.inputs.seed = in.seed;
  s.inputs.samples = in.samples;
  s.inputs.dims = in.dims;
  for (const auto& [name, shape] : in.shapes) s.inputs.shapes[name] = {shape.begin(), shape.end()};
  for (const auto& [name, r] : in.ranges) s.inputs.ranges[name] = {r.lo, r.hi};
  for (const auto& [name, path] : in.files) {
    s.inputs.files[name] = path.string();
    PARITY_ASSIGN_OR_RETURN(sha, sha256_file(path));
    s.inputs.file_sha256[name] = sha;
  }
  s.inputs.resize = in.resize;
  if (in.load_io) s.inputs.load_io = in.load_io->string();
  if (in.max_input_bytes != probe::InputSettings::kDefaultMaxInputBytes)
    s.inputs.max_input_bytes = in.max_input_bytes;
  s.timeout_s = plan.limits.timeout_s;
  s.max_memory_bytes = plan.limits.max_memory_bytes;
  return s;
}

manifest::Evidence evidence_of(const CellResult& r) {
  manifest::Evidence e;
  e.cell = r.index;
  e.status = std::string(probe::to_string(r.status));
  e.max_abs = r.max_abs;
  e.cosine = r.cosine;
  e.ort_version = r.ort_version;
  e.adapter = r.adapter;
  e.date = r.finished_at.substr(0, 10);
  e.size = r.size;
  return e;
}

// Why a backend has no correct variant: its first findings, one line.
std::string reason_for(const BackendLadder& l, const std::vector<CellResult>& results) {
  if (l.failing_cells.empty())
    return "not every cell of this backend has run (" + std::to_string(l.missing_cells) +
           " missing): run the sweep to the end";
  std::string reason = "no variant is correct in every size at any opt level: ";
  std::size_t listed = 0;
  for (std::size_t k : l.failing_cells)
    for (const auto& r : results)
      if (r.index == k && listed < 3) {
        reason += (listed++ ? "; " : "") + r.variant + " at opt " + r.opt_level +
                  (r.size.empty() ? "" : ", " + r.size) + ": " + describe_outcome(r);
      }
  if (l.failing_cells.size() > listed) reason += "; ...";
  return reason;
}

// A disabled backend's evidence: its first failing cell, with the file it ran, so `manifest
// verify` can tell when a later runtime gets it right. None when no cell failed (cells missing).
Result<std::optional<manifest::Evidence>> failing_evidence(const SweepPlan& plan, const BackendLadder& l,
                                                           const std::vector<CellResult>& results) {
  if (l.failing_cells.empty()) return std::optional<manifest::Evidence>();
  const std::size_t k = l.failing_cells.front();
  for (const auto& r : results) {
    if (r.index != k) continue;
    const Cell c = cell_at(plan, k);
    const Variant& v = plan.variants[c.variant];
    manifest::Evidence e = evidence_of(r);
    e.variant = v.name;
    e.file = v.path.string();
    PARITY_ASSIGN_OR_RETURN(sha, sha256_file(v.path));
    e.sha256 = sha;
    e.precision = v.precision;
    e.graph_optimization = plan.opt_levels[c.opt_level];
    return std::optional<manifest::Evidence>(std::move(e));
  }
  return std::optional<manifest::Evidence>();
}

}  // namespace

Result<manifest::Manifest> build_manifest(const SweepPlan& plan, const std::vector<CellResult>& results,
                                          const std::string& today) {
  manifest::Manifest m;
  m.model = plan.model.string();
  PARITY_ASSIGN_OR_RETURN(model_sha, sha256_file(plan.model));
  m.model_sha256 = model_sha;
  m.parity_version = std::string(kParityVersion);
  m.created = today;
  PARITY_ASSIGN_OR_RETURN(setup, setup_of(plan));
  m.sweep = std::move(setup);
  const std::vector<BackendLadder> ladder = judge_ladder(plan, results);
  for (std::size_t b = 0; b < ladder.size(); ++b) {
    const BackendLadder& l = ladder[b];
    const backend::BackendSpec& spec = plan.backends[b];
    manifest::Declaration d;
    d.backend = l.backend;
    d.ep = spec.ep;
    d.provider_options = as_map(spec.provider_options);
    d.session_options = as_map(spec.session_config);
    d.runtime = runtime_of(spec);
    d.enabled = !l.smallest_correct.empty() && l.missing_cells == 0;
    if (!d.enabled) {
      d.reason = reason_for(l, results);
      PARITY_ASSIGN_OR_RETURN(evidence, failing_evidence(plan, l, results));
      d.evidence = std::move(evidence);
      m.backends.push_back(std::move(d));
      continue;
    }
    std::size_t v = 0;
    while (plan.variants[v].name != l.smallest_correct) ++v;
    std::size_t o = 0;
    while (plan.opt_levels[o] != l.correct_opt_levels.front()) ++o;
    d.variant = plan.variants[v].name;
    d.file = plan.variants[v].path.string();
    d.precision = plan.variants[v].precision;
    d.graph_optimization = plan.opt_levels[o];
    PARITY_ASSIGN_OR_RETURN(sha, sha256_file(plan.variants[v].path));
    d.sha256 = sha;
    PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(plan.variants[v].path));
    d.largest_weight_bytes = info.largest_weight_bytes;
    // The largest size proven (the ladder's choice is correct at every size of the plan).
    std::size_t largest = 0;
    for (std::size_t s = 1; s < plan.sizes.size(); ++s)
      if (plan.sizes[s].height * plan.sizes[s].width > plan.sizes[largest].height * plan.sizes[largest].width)
        largest = s;
    if (!plan.sizes.empty()) d.max_size = plan.sizes[largest].label();
    const std::size_t cell = cell_index(plan, b, v, o, plan.sizes.empty() ? 0 : largest);
    for (const auto& r : results) {
      if (r.index != cell) continue;
      d.evidence = evidence_of(r);
      if (r.cliff && r.cliff->largest_correct && !r.cliff->reached_max) {
        d.max_size = r.size;  // a size search's cell is reported at its largest correct size
        if (r.cliff->budget) d.size_budget = size_point(*plan.size_search, *r.cliff->budget).label();
      } else if (r.cliff && r.cliff->largest_correct) {
        d.max_size = r.size;  // correct up to --size-max: proven there, no cliff to keep clear of
      }
    }
    m.backends.push_back(std::move(d));
  }
  return m;
}

}  // namespace parity::sweep
