// sweep/cliff.h: the size cliff: the largest input size at which a backend is still correct.
//
// Sizes keep the aspect ratio of a start size and step by `step` pixels on the long side, so the
// search runs over one integer, k (long side = k * step). It grows k until the output is no longer
// correct (pixel count doubling: k * sqrt(2)), then binary-searches between the last correct and
// the first failing k, so the answer lands within one step of the boundary for any backend whose
// correctness only gets worse with size. Where the first failing size is only *partly* wrong (some
// regions of an image-like output, see parity/region_map.h), a second search finds the top of that
// band: the seed's super-resolution model went locally zero in a band below its all-black cliff.
// The search depends on nothing but a function that judges one size, so it is tested on its own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parity/result.h"

namespace parity::sweep {

struct SizeSearch {
  std::string input;  // the input whose last two dims (H, W) vary
  int64_t start_height = 0, start_width = 0;
  int64_t step = 16;        // pixels per step of the long side
  int64_t max_side = 4096;  // the search stops growing here
  double margin = 0.1;      // the budget stays this share of pixels below the largest correct size
};

// One step's size: the long side is k * step, the short side keeps the start's ratio, rounded to
// the step (at least one step).
struct SearchSize {
  int64_t k = 0;
  int64_t height = 0, width = 0;
};
SearchSize size_at(const SizeSearch& s, int64_t k);
// k of the start size (its long side in steps, at least 1).
int64_t start_k(const SizeSearch& s);

enum class SizeOutcome { correct, partly_wrong, wrong, failed };
std::string_view to_string(SizeOutcome o);
std::optional<SizeOutcome> size_outcome_from_string(std::string_view name);

// What one size gave. `detail` is the one-line outcome ("oom: ...", "mismatch (...)").
struct SizeTrial {
  SearchSize size;
  SizeOutcome outcome = SizeOutcome::failed;
  std::string status;  // the probe status: ok, mismatch, oom, ...
  std::string detail;
  std::string extent;  // region extent of the worst output: none, part, all, "" (not image-like)
  std::optional<double> max_abs, cosine;
  double run_ms = 0;
  uint64_t peak_memory_bytes = 0;
};

struct CliffResult {
  std::vector<SizeTrial> trials;  // in the order they ran
  std::optional<SearchSize> largest_correct;
  std::optional<SearchSize> first_failing;  // one step above largest_correct (or the smallest size)
  // Sizes whose output is partly wrong, from the first failing one up; absent when the first
  // failing size is wrong all over or fails to run.
  std::optional<SearchSize> band_low, band_high;
  std::optional<SearchSize> budget;  // largest_correct less the margin, in whole steps
  bool reached_max = false;          // correct up to max_side: no cliff found
};

using SizeJudge = std::function<Result<SizeTrial>(const SearchSize&)>;

// Runs the search; an Error from `judge` (the sweep cannot run at all, interrupted) stops it.
Result<CliffResult> search_cliff(const SizeSearch& s, const SizeJudge& judge);

}  // namespace parity::sweep
