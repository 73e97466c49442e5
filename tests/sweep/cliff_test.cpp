// The size-search algorithm on its own (sweep/cliff.h): boundaries it must land within one step
// of, bands, budgets, and how many sizes it spends. Each judge here is a rule of a backend's
// behaviour by size; the real-backend search is in sweep_cli_test.cpp.
#include "sweep/cliff.h"

#include <gtest/gtest.h>

#include <cmath>

namespace parity::sweep {
namespace {

// Correct up to k = good, partly wrong up to k = band, wrong above; counts the sizes judged.
struct Rule {
  int64_t good = 0, band = 0;
  bool fail_instead = false;  // above `band`: an error (oom) instead of a wrong output
  int calls = 0;
  SizeJudge judge() {
    return [this](const SearchSize& s) -> Result<SizeTrial> {
      ++calls;
      SizeTrial t;
      t.size = s;
      t.outcome = s.k <= good    ? SizeOutcome::correct
                  : s.k <= band  ? SizeOutcome::partly_wrong
                  : fail_instead ? SizeOutcome::failed
                                 : SizeOutcome::wrong;
      return t;
    };
  }
};

SizeSearch search_from(int64_t h, int64_t w, int64_t step = 16, int64_t max_side = 4096) {
  SizeSearch s;
  s.input = "x";
  s.start_height = h;
  s.start_width = w;
  s.step = step;
  s.max_side = max_side;
  return s;
}

TEST(Cliff, LandsOneStepFromTheBoundaryFromAnyStart) {
  for (int64_t good : {1, 7, 37, 100, 255}) {
    for (int64_t start : {16, 256, 1024}) {
      Rule rule{good, good, true};
      auto r = search_cliff(search_from(start, start), rule.judge());
      ASSERT_TRUE(r.ok());
      ASSERT_TRUE(r->largest_correct) << good << " from " << start;
      EXPECT_EQ(r->largest_correct->k, good);
      ASSERT_TRUE(r->first_failing);
      EXPECT_EQ(r->first_failing->k, good + 1);
      EXPECT_FALSE(r->band_low);
      // Growth doubles the pixel count (sides x sqrt 2), then halving: about 3 log2(k) sizes at most.
      EXPECT_LE(rule.calls, 3 * static_cast<int>(std::log2(static_cast<double>(good) + 1)) + 4)
          << "too many sizes for " << good;
    }
  }
}

TEST(Cliff, FindsThePartlyWrongBandBelowTheAllWrongCliff) {
  Rule rule{37, 45};
  auto r = search_cliff(search_from(256, 256), rule.judge());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->largest_correct->k, 37);
  ASSERT_TRUE(r->band_low && r->band_high);
  EXPECT_EQ(r->band_low->k, 38);
  EXPECT_EQ(r->band_high->k, 45);
}

TEST(Cliff, KeepsTheAspectRatioAndRoundsToTheStep) {
  const SizeSearch s = search_from(180, 320, 32);
  const SearchSize z = size_at(s, 10);
  EXPECT_EQ(z.width, 320);
  EXPECT_EQ(z.height, 192);  // 320 * 180/320 = 180, rounded to 32
  EXPECT_EQ(start_k(s), 10);
  EXPECT_EQ(size_at(s, 1).height, 32);  // never below one step
}

TEST(Cliff, NoCliffUpToTheMaximumAndNothingCorrectAtAll) {
  Rule always{1000, 1000};
  auto r = search_cliff(search_from(256, 256, 16, 1024), always.judge());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->reached_max);
  EXPECT_EQ(r->largest_correct->height, 1024);
  EXPECT_FALSE(r->first_failing);

  Rule never{0, 0, true};
  auto n = search_cliff(search_from(256, 256), never.judge());
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n->largest_correct);
  EXPECT_EQ(n->first_failing->k, 1);
  EXPECT_FALSE(n->budget);
}

TEST(Cliff, BudgetKeepsTheMarginInPixels) {
  Rule rule{100, 100, true};
  SizeSearch s = search_from(256, 256);
  s.margin = 0.19;  // sqrt(0.81) = 0.9 of the side
  auto r = search_cliff(s, rule.judge());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->budget->k, 90);
  s.margin = 0;
  Rule again{100, 100, true};
  EXPECT_EQ(search_cliff(s, again.judge())->budget->k, 100);
}

TEST(Cliff, AnErrorFromTheJudgeStopsTheSearch) {
  SizeJudge judge = [](const SearchSize&) -> Result<SizeTrial> {
    return make_error(ErrorKind::interrupted, Stage::none, "interrupted");
  };
  auto r = search_cliff(search_from(256, 256), judge);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::interrupted);
}

}  // namespace
}  // namespace parity::sweep
