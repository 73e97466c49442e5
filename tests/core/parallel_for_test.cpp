#include "core/parallel_for.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <vector>

namespace parity {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceWhateverTheThreadCount) {
  for (unsigned threads : {0u, 1u, 2u, 7u, 64u})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> seen(n);
      parallel_for(
          n, [&](std::size_t i) { seen[i]++; }, threads);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i].load(), 1) << "n " << n << " threads " << threads;
    }
}

// A Slurm job or `taskset` allots CPUs by affinity: the default thread count follows it.
TEST(ParallelFor, UsableCoresFollowTheAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(usable_cores(), static_cast<unsigned>(CPU_COUNT(&saved)));
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(usable_cores(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
}

}  // namespace
}  // namespace parity
