// Replays lint's model path (graph facts, then every static rule) over the crafted files and their
// damaged copies, as fuzz/fuzz_lint_model does under libFuzzer: a typed error, never a crash.
#include <gtest/gtest.h>

#include "../../fuzz/model_path_checks.h"

namespace parity::lint {
namespace {

TEST(FuzzLintCorpus, LintModelPathKeepsItsContract) {
  std::size_t inputs = 0;
  uint32_t rng_seed = 400;
  for (const std::string& seed : fuzz::model_path_seeds(PARITY_TEST_MODELS)) {
    ASSERT_FALSE(seed.empty());
    for (const std::string& input : fuzz::sparse_mutations(seed, rng_seed++)) {
      const std::string problem = fuzz::check_lint_model(input);
      ASSERT_TRUE(problem.empty()) << problem << " (input of " << input.size() << " bytes)";
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 300u);
}

}  // namespace
}  // namespace parity::lint
