// call_forked: the work's bytes come back whole; a child that dies becomes a typed Error, and the
// parent's memory is untouched by what the child wrote.
#include "core/forked_call.h"

#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>
#include <string>

namespace parity {
namespace {

ForkedCallOptions options() {
  ForkedCallOptions o;
  o.stage = Stage::load_model;
  o.what = "m.onnx: the work";
  o.hint = "one line";
  return o;
}

TEST(ForkedCall, ReturnsTheBytesAndLeavesTheParentAsItWas) {
  std::string state = "parent";
  // Larger than a pipe's buffer, so the parent must read while the child writes.
  const auto r = call_forked(
      [&state] {
        state = "child";
        return std::string(3 << 20, 'x') + state;
      },
      options());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->size(), (3u << 20) + 5);
  EXPECT_EQ(r->substr(r->size() - 5), "child");
  EXPECT_EQ(state, "parent");
}

TEST(ForkedCall, AFatalSignalIsACrashedError) {
  volatile int zero = 0;
  const auto r = call_forked(
      [&zero]() -> std::string {
        volatile int v = 1 / zero;  // SIGFPE on x86, as ONNX's stride division
        (void)v;
        std::raise(SIGFPE);  // where integer division does not trap
        return "unreachable";
      },
      options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::crashed);
  EXPECT_EQ(r.error().stage, Stage::load_model);
  EXPECT_EQ(r.error().signal, SIGFPE);
  EXPECT_EQ(r.error().message, "m.onnx: the work crashed: killed by SIGFPE");
  EXPECT_EQ(r.error().hint, "one line");
}

TEST(ForkedCall, AnUncaughtExceptionIsACrashedErrorNotAnAbortOfTheParent) {
  const auto r = call_forked([]() -> std::string { throw std::runtime_error("malformed Scan"); }, options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::crashed);
  EXPECT_EQ(r.error().signal, SIGABRT);
}

}  // namespace
}  // namespace parity
