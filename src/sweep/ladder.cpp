#include "sweep/ladder.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace parity::sweep {

std::string describe_outcome(const CellResult& r) {
  std::string s(probe::to_string(r.status));
  if (r.error) return s + ": " + r.error->message.substr(0, 160);
  std::vector<std::string> parts;
  if (!r.failed_rule.empty()) parts.push_back("rule '" + r.failed_rule + "'");
  if (r.max_abs) parts.push_back(fmt::format("max_abs {:.4g}", *r.max_abs));
  if (r.cosine) parts.push_back(fmt::format("cosine {:.4g}", *r.cosine));
  if (r.extent == "part" && !r.wrong_box.empty())
    parts.push_back("wrong in " + r.wrong_box + " of 8x8 regions");
  std::string joined;
  for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
  return joined.empty() ? s : s + " (" + joined + ")";
}

std::vector<BackendLadder> judge_ladder(const SweepPlan& plan, const std::vector<CellResult>& results) {
  std::map<std::size_t, const CellResult*> by_index;
  for (const auto& r : results) by_index[r.index] = &r;
  std::vector<std::size_t> order(plan.variants.size());  // smallest file first
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::uintmax_t> bytes(plan.variants.size(), 0);
  for (std::size_t v = 0; v < plan.variants.size(); ++v) {
    std::error_code ec;
    bytes[v] = std::filesystem::file_size(plan.variants[v].path, ec);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return bytes[a] < bytes[b]; });

  std::vector<BackendLadder> out;
  for (std::size_t k = 0; k < plan.cell_count(); ++k) {
    const Cell c = cell_at(plan, k);
    if (out.size() <= c.backend) {
      out.emplace_back();
      out.back().backend = plan.backends[c.backend].label;
    }
    const auto it = by_index.find(k);
    if (it == by_index.end()) {
      ++out[c.backend].missing_cells;
    } else if (!it->second->ok()) {
      out[c.backend].failing_cells.push_back(k);
    }
  }
  const std::size_t sizes = std::max<std::size_t>(plan.sizes.size(), 1);
  for (std::size_t b = 0; b < out.size(); ++b) {
    for (std::size_t v : order) {
      std::vector<std::string> levels;
      for (std::size_t o = 0; o < plan.opt_levels.size(); ++o) {
        bool all_ok = true;
        for (std::size_t s = 0; s < sizes && all_ok; ++s) {
          const auto it = by_index.find(cell_index(plan, b, v, o, s));
          all_ok = it != by_index.end() && it->second->ok();
        }
        if (all_ok) levels.push_back(plan.opt_levels[o]);
      }
      if (levels.empty()) continue;
      out[b].smallest_correct = plan.variants[v].name;
      out[b].smallest_correct_precision = plan.variants[v].precision;
      out[b].smallest_correct_bytes = bytes[v];
      out[b].correct_opt_levels = std::move(levels);
      break;
    }
  }
  return out;
}

}  // namespace parity::sweep
