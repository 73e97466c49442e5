// call_forked: the work's bytes come back whole; a child that dies becomes a typed Error, and the
// parent's memory is untouched by what the child wrote.
#include "core/forked_call.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

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

// The host's crash handler (here one that writes to a pipe, as a crash reporter writes its dump) is
// not run for the child's crash: the child dies of the signal itself.
int g_reported_fd = -1;
void report_crash(int) {
  const char mark = 'x';
  (void)!::write(g_reported_fd, &mark, 1);
  ::_exit(70);
}

TEST(ForkedCall, TheHostsCrashHandlerDoesNotReportTheChildsCrash) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_NONBLOCK), 0);
  g_reported_fd = fds[1];
  struct sigaction handler {};
  handler.sa_handler = report_crash;
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGSEGV, &handler, &before), 0);
  const auto r = call_forked(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "unreachable";
      },
      options());
  ::sigaction(SIGSEGV, &before, nullptr);
  char mark = 0;
  const ssize_t reported = ::read(fds[0], &mark, 1);
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().signal, SIGSEGV) << r.error().message;
  EXPECT_EQ(reported, -1) << "the inherited handler ran in the child";
}

TEST(ForkedCall, AnUncaughtExceptionIsACrashedErrorNotAnAbortOfTheParent) {
  const auto r = call_forked([]() -> std::string { throw std::runtime_error("malformed Scan"); }, options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::crashed);
  EXPECT_EQ(r.error().signal, SIGABRT);
}

}  // namespace
}  // namespace parity
