// sweep/ladder.h: what a sweep means for each backend: the smallest variant that is correct in
// every cell of some optimization level (across all sizes), and why the others are not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/sweep.h"

namespace parity::sweep {

struct BackendLadder {
  std::string backend;
  std::string smallest_correct;                 // variant name; empty when none is correct
  std::string smallest_correct_precision;       // its precision ("uint8" for a variant named "small")
  std::uintmax_t smallest_correct_bytes = 0;    // its file size
  std::vector<std::string> correct_opt_levels;  // where it is correct in every size
  std::vector<std::size_t> failing_cells;       // cells of this backend that ran and are not ok
  std::size_t missing_cells = 0;                // cells of this backend with no result yet
};

// "mismatch (rule 'allclose', max_abs 1.346, cosine 0.3107)", "crashed: <message>": a cell's
// outcome in one line, for findings and manifest reasons.
std::string describe_outcome(const CellResult& r);

// One entry per backend of the plan, in plan order. Variants are tried smallest file first.
std::vector<BackendLadder> judge_ladder(const SweepPlan& plan, const std::vector<CellResult>& results);

}  // namespace parity::sweep
