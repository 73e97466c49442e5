// StallWatch's decision on sample series: busy is never a stall, idle is (with or without a
// heartbeat), and nothing is called before a whole window was watched.
#include "backend/browser/stall_watch.h"

#include <gtest/gtest.h>

namespace parity::backend::browser {
namespace {

// Feeds one sample a second for `seconds`, the browser using `cpu_per_s` CPU seconds per second
// and beating every second when `beating`; returns the first stall and when it came.
struct Fed {
  std::optional<Stall> stall;
  double at = -1;
};
Fed feed(StallWatch& watch, double seconds, double cpu_per_s, bool beating, double start = 0,
         double cpu_start = 0) {
  for (double t = start; t <= start + seconds; t += 1) {
    const double cpu = cpu_start + (t - start) * cpu_per_s;
    if (auto s = watch.observe(t, cpu, beating ? t : -1, "session.run")) return {s, t};
  }
  return {};
}

TEST(StallWatch, BusyBrowserIsNeverAStallEvenWithoutBeats) {
  StallWatch watch({10, 0.05});
  EXPECT_FALSE(feed(watch, 120, 0.9, false).stall) << "a synchronous wasm run blocks beats but works";
  StallWatch beating({10, 0.05});
  EXPECT_FALSE(feed(beating, 120, 0.2, true).stall);
}

TEST(StallWatch, IdleWithBeatsIsAWaitThatNeverEnds) {
  StallWatch watch({10, 0.05});
  const Fed fed = feed(watch, 60, 0.001, true);
  ASSERT_TRUE(fed.stall);
  EXPECT_EQ(fed.at, 10) << "called as soon as one whole window was idle";
  EXPECT_TRUE(fed.stall->beating);
  EXPECT_EQ(fed.stall->step, "session.run");
  EXPECT_NE(fed.stall->describe().find("heartbeat went on"), std::string::npos) << fed.stall->describe();
}

TEST(StallWatch, IdleWithoutBeatsIsAPageThatStoppedAnswering) {
  StallWatch watch({10, 0.05});
  const Fed fed = feed(watch, 60, 0.0, false);
  ASSERT_TRUE(fed.stall);
  EXPECT_FALSE(fed.stall->beating);
  EXPECT_NE(fed.stall->describe().find("stopped answering"), std::string::npos) << fed.stall->describe();
}

TEST(StallWatch, WorkThenIdleCountsOnlyTheIdleWindow) {
  StallWatch watch({10, 0.05});
  EXPECT_FALSE(feed(watch, 30, 1.0, true).stall);
  // The last work ends at t=30: the stall comes one window later, not at once.
  const Fed fed = feed(watch, 60, 0.0, true, 31, 30);
  ASSERT_TRUE(fed.stall);
  EXPECT_EQ(fed.at, 40);
  EXPECT_LT(fed.stall->cpu_s, 0.5);
}

TEST(StallWatch, ShortBurstsOfWorkKeepItAlive) {
  StallWatch watch({10, 0.05});
  // One second of work in every ten is 10% of a core: above the idle share.
  for (double t = 0; t < 100; t += 1) {
    const double cpu = static_cast<int>(t / 10) + (static_cast<int>(t) % 10 == 9 ? 1 : 0);
    EXPECT_FALSE(watch.observe(t, cpu, t, "run")) << "t=" << t;
  }
}

}  // namespace
}  // namespace parity::backend::browser
