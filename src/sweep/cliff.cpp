#include "sweep/cliff.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace parity::sweep {
namespace {

int64_t round_to_step(double pixels, int64_t step) {
  return std::max<int64_t>(step,
                           static_cast<int64_t>(std::llround(pixels / static_cast<double>(step))) * step);
}

// k for a pixel count `factor` times that of k (sides scale by sqrt(factor)); at least k + 1.
int64_t grown(int64_t k, double factor) {
  return std::max<int64_t>(k + 1,
                           static_cast<int64_t>(std::ceil(static_cast<double>(k) * std::sqrt(factor))));
}

class Search {
 public:
  Search(const SizeSearch& s, const SizeJudge& judge) : s_(s), judge_(judge) {}

  // The outcome at k, judged once.
  Result<SizeOutcome> at(int64_t k) {
    if (auto it = seen_.find(k); it != seen_.end()) return it->second;
    PARITY_ASSIGN_OR_RETURN(t, judge_(size_at(s_, k)));
    const SizeOutcome o = t.outcome;
    result.trials.push_back(std::move(t));
    seen_[k] = o;
    return o;
  }

  // The smallest judged k above `above` with one of the outcomes `wanted`.
  std::optional<int64_t> first_seen_above(int64_t above, std::initializer_list<SizeOutcome> wanted) const {
    for (const auto& [k, o] : seen_)
      if (k > above && std::find(wanted.begin(), wanted.end(), o) != wanted.end()) return k;
    return std::nullopt;
  }

  CliffResult result;

 private:
  const SizeSearch& s_;
  const SizeJudge& judge_;
  std::map<int64_t, SizeOutcome> seen_;
};

bool ok(SizeOutcome o) { return o == SizeOutcome::correct; }
bool broken(SizeOutcome o) { return o == SizeOutcome::wrong || o == SizeOutcome::failed; }

}  // namespace

std::string_view to_string(SizeOutcome o) {
  switch (o) {
    case SizeOutcome::correct: return "correct";
    case SizeOutcome::partly_wrong: return "partly-wrong";
    case SizeOutcome::wrong: return "wrong";
    case SizeOutcome::failed: return "failed";
  }
  return "failed";
}

std::optional<SizeOutcome> size_outcome_from_string(std::string_view name) {
  for (SizeOutcome o :
       {SizeOutcome::correct, SizeOutcome::partly_wrong, SizeOutcome::wrong, SizeOutcome::failed})
    if (to_string(o) == name) return o;
  return std::nullopt;
}

SearchSize size_at(const SizeSearch& s, int64_t k) {
  const bool tall = s.start_height >= s.start_width;
  const int64_t long0 = std::max<int64_t>(std::max(s.start_height, s.start_width), 1);
  const int64_t short0 = std::max<int64_t>(std::min(s.start_height, s.start_width), 1);
  const int64_t long_side = k * s.step;
  const int64_t short_side = round_to_step(
      static_cast<double>(long_side) * static_cast<double>(short0) / static_cast<double>(long0), s.step);
  return {k, tall ? long_side : short_side, tall ? short_side : long_side};
}

int64_t start_k(const SizeSearch& s) {
  return std::max<int64_t>(1, std::max(s.start_height, s.start_width) / std::max<int64_t>(s.step, 1));
}

Result<CliffResult> search_cliff(const SizeSearch& s, const SizeJudge& judge) {
  Search search(s, judge);
  const int64_t k_max = std::max<int64_t>(1, s.max_side / std::max<int64_t>(s.step, 1));
  int64_t lo = 0;   // largest k known correct; 0 = none yet
  int64_t hi = -1;  // smallest k known not correct; -1 = none yet

  // Grow from the start while correct (pixel count doubling), or fall back to the smallest size.
  const int64_t k0 = std::min(start_k(s), k_max);
  PARITY_ASSIGN_OR_RETURN(first, search.at(k0));
  if (ok(first)) {
    lo = k0;
    while (hi < 0) {
      if (lo >= k_max) {
        search.result.reached_max = true;
        break;
      }
      const int64_t next = std::min(grown(lo, 2), k_max);
      PARITY_ASSIGN_OR_RETURN(o, search.at(next));
      (ok(o) ? lo : hi) = next;
    }
  } else {
    hi = k0;
    if (k0 > 1) {
      PARITY_ASSIGN_OR_RETURN(smallest, search.at(1));
      (ok(smallest) ? lo : hi) = 1;
    }
  }
  // Binary search: lo correct, hi not, until they are one step apart.
  while (hi > 0 && lo > 0 && hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    PARITY_ASSIGN_OR_RETURN(o, search.at(mid));
    (ok(o) ? lo : hi) = mid;
  }
  CliffResult& r = search.result;
  if (lo > 0) r.largest_correct = size_at(s, lo);
  if (hi > 0) r.first_failing = size_at(s, hi);

  // The partly-wrong band above the first failing size: find where it turns wrong all over.
  if (hi > 0) {
    PARITY_ASSIGN_OR_RETURN(at_hi, search.at(hi));
    if (at_hi == SizeOutcome::partly_wrong) {
      int64_t top = hi;  // partly wrong (or better)
      std::optional<int64_t> worse = search.first_seen_above(hi, {SizeOutcome::wrong, SizeOutcome::failed});
      while (!worse && top < k_max) {
        const int64_t next = std::min(grown(top, 2), k_max);
        PARITY_ASSIGN_OR_RETURN(o, search.at(next));
        if (broken(o))
          worse = next;
        else
          top = next;
      }
      while (worse && *worse - top > 1) {
        const int64_t mid = top + (*worse - top) / 2;
        PARITY_ASSIGN_OR_RETURN(o, search.at(mid));
        if (broken(o))
          worse = mid;
        else
          top = mid;
      }
      r.band_low = size_at(s, hi);
      r.band_high = size_at(s, top);
    }
  }
  if (lo > 0) {
    const double keep = std::clamp(1.0 - s.margin, 0.0, 1.0);
    const int64_t k_budget =
        std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(lo) * std::sqrt(keep))));
    r.budget = size_at(s, std::min(k_budget, lo));
  }
  return std::move(search.result);
}

}  // namespace parity::sweep
