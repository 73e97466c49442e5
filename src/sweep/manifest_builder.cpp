#include "sweep/manifest_builder.h"

#include <map>

#include "core/sha256.h"
#include "parity/version.h"
#include "sweep/ladder.h"

namespace parity::sweep {
namespace {

std::map<std::string, std::string> as_map(const backend::KeyValues& kv) { return {kv.begin(), kv.end()}; }

manifest::Evidence evidence_of(const CellResult& r) {
  return {r.index,
          std::string(probe::to_string(r.status)),
          r.max_abs,
          r.cosine,
          r.ort_version,
          r.adapter,
          r.finished_at.substr(0, 10)};
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

}  // namespace

Result<manifest::Manifest> build_manifest(const SweepPlan& plan, const std::vector<CellResult>& results,
                                          const std::string& today) {
  manifest::Manifest m;
  m.model = plan.model.string();
  m.parity_version = std::string(kParityVersion);
  m.created = today;
  const std::vector<BackendLadder> ladder = judge_ladder(plan, results);
  for (std::size_t b = 0; b < ladder.size(); ++b) {
    const BackendLadder& l = ladder[b];
    const backend::BackendSpec& spec = plan.backends[b];
    manifest::Declaration d;
    d.backend = l.backend;
    d.ep = spec.ep;
    d.provider_options = as_map(spec.provider_options);
    d.session_options = as_map(spec.session_config);
    d.enabled = !l.smallest_correct.empty() && l.missing_cells == 0;
    if (!d.enabled) {
      d.reason = reason_for(l, results);
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
    // The largest size proven (the ladder's choice is correct at every size of the plan).
    std::size_t largest = 0;
    for (std::size_t s = 1; s < plan.sizes.size(); ++s)
      if (plan.sizes[s].height * plan.sizes[s].width > plan.sizes[largest].height * plan.sizes[largest].width)
        largest = s;
    if (!plan.sizes.empty()) d.max_size = plan.sizes[largest].label();
    const std::size_t cell = cell_index(plan, b, v, o, plan.sizes.empty() ? 0 : largest);
    for (const auto& r : results)
      if (r.index == cell) d.evidence = evidence_of(r);
    m.backends.push_back(std::move(d));
  }
  return m;
}

}  // namespace parity::sweep
