#include "parity/error.h"

#include <gtest/gtest.h>

#include <csignal>

#include "parity/result.h"

namespace parity {
namespace {

TEST(Error, KindAndStageNamesRoundTrip) {
  for (auto k : {ErrorKind::error, ErrorKind::crashed, ErrorKind::timeout, ErrorKind::oom,
                 ErrorKind::unavailable, ErrorKind::bad_input, ErrorKind::io, ErrorKind::internal}) {
    auto back = error_kind_from_string(to_string(k));
    ASSERT_TRUE(back.has_value()) << to_string(k);
    EXPECT_EQ(*back, k);
  }
  EXPECT_EQ(to_string(Stage::append_provider), "append-provider");
  EXPECT_EQ(stage_from_string("create-session"), Stage::create_session);
  EXPECT_FALSE(stage_from_string("no-such-stage").has_value());
}

TEST(Error, DescribeNamesBackendStageKindSignalAndHint) {
  Error e = make_error(ErrorKind::crashed, Stage::run, "worker died", "rerun with --timeout");
  e.backend = "webgpu";
  e.signal = SIGSEGV;
  EXPECT_EQ(e.describe(), "webgpu: run: crashed (SIGSEGV): worker died (hint: rerun with --timeout)");
}

Result<int> half_of(int x) {
  if (x % 2) return make_error(ErrorKind::bad_input, Stage::none, "odd");
  return x / 2;
}

Result<int> quarter_of(int x) {
  PARITY_ASSIGN_OR_RETURN(h, half_of(x));
  return half_of(h);
}

TEST(Result, PropagatesErrorsAndValues) {
  EXPECT_EQ(*quarter_of(8), 2);
  auto r = quarter_of(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "odd");
}

}  // namespace
}  // namespace parity
