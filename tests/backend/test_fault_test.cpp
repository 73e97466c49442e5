#include "backend/test_fault.h"

#include <gtest/gtest.h>

#include "backend_test_util.h"

namespace parity::backend {
namespace {

TEST(TestFault, ParsesStageAndAction) {
  auto f = parse_test_fault("create-session:segv");
  ASSERT_TRUE(f.ok()) << f.error().describe();
  EXPECT_EQ(f->stage, Stage::create_session);
  EXPECT_EQ(f->action, FaultAction::segv);

  auto g = parse_test_fault("read_output:null");  // snake_case is accepted too
  ASSERT_TRUE(g.ok()) << g.error().describe();
  EXPECT_EQ(g->stage, Stage::read_output);
  EXPECT_EQ(g->action, FaultAction::null_result);

  for (auto [text, action] :
       {std::pair{"run:abort", FaultAction::abort}, std::pair{"run:hang", FaultAction::hang},
        std::pair{"run:oom", FaultAction::oom}}) {
    auto h = parse_test_fault(text);
    ASSERT_TRUE(h.ok()) << text;
    EXPECT_EQ(h->action, action) << text;
  }
}

TEST(TestFault, BadSpecsAreBadInputNotIgnored) {
  for (const char* bad : {"", "run", "run:", ":null", "no-such-stage:null", "run:explode", "none:null"}) {
    auto f = parse_test_fault(bad);
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_EQ(f.error().kind, ErrorKind::bad_input) << bad;
    EXPECT_FALSE(f.error().hint.empty()) << bad;
  }
}

TEST(TestFault, ReadsEnvironment) {
  {
    testing::ScopedEnv env("PARITY_TEST_FAULT", std::nullopt);
    auto f = test_fault_from_env();
    ASSERT_TRUE(f.ok());
    EXPECT_FALSE(f->has_value());
  }
  {
    testing::ScopedEnv env("PARITY_TEST_FAULT", "append-provider:null");
    auto f = test_fault_from_env();
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->has_value());
    EXPECT_EQ((*f)->stage, Stage::append_provider);
  }
  {
    testing::ScopedEnv env("PARITY_TEST_FAULT", "bogus");
    auto f = test_fault_from_env();
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().kind, ErrorKind::bad_input);
  }
}

TEST(TestFault, WantsNullOnlyAtItsStage) {
  const std::optional<TestFault> fault = TestFault{Stage::run, FaultAction::null_result};
  EXPECT_TRUE(wants_null(fault, Stage::run));
  EXPECT_FALSE(wants_null(fault, Stage::create_session));
  EXPECT_FALSE(wants_null(std::nullopt, Stage::run));
  EXPECT_FALSE(wants_null(TestFault{Stage::run, FaultAction::segv}, Stage::run));
  // Triggering at other stages, or a null fault at its own stage, returns normally.
  trigger_test_fault(TestFault{Stage::run, FaultAction::segv}, Stage::create_env);
  trigger_test_fault(fault, Stage::run);
  trigger_test_fault(std::nullopt, Stage::run);
}

}  // namespace
}  // namespace parity::backend
