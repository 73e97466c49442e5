// ChromiumSession against real headless Chromium over --remote-debugging-pipe.
#include "backend/browser/chromium_session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "support/processes.h"
#include "support/requirements.h"

namespace parity::backend::browser {
namespace {

class ChromiumSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { PARITY_REQUIRE("chromium"); }
};

TEST_F(ChromiumSessionTest, EvaluatesConsoleTimeoutAndCleansUp) {
  std::string profile;
  {
    auto launched = ChromiumSession::launch();
    ASSERT_TRUE(launched.ok()) << launched.error().describe();
    ChromiumSession& s = **launched;
    profile = s.profile_dir();
    EXPECT_TRUE(std::filesystem::is_directory(profile));
    EXPECT_GT(parity::testing::processes_mentioning(profile), 0);

    auto sum = s.evaluate("1+2", 5);
    ASSERT_TRUE(sum.ok()) << sum.error().describe();
    EXPECT_EQ(*sum, 3);

    auto vendor = s.evaluate(
        "navigator.gpu ? (await navigator.gpu.requestAdapter())?.info?.vendor ?? 'none' : 'no-webgpu'", 10);
    ASSERT_TRUE(vendor.ok()) << vendor.error().describe();
    ASSERT_TRUE(vendor->is_string());
    std::cout << "[ info ] WebGPU adapter vendor: " << vendor->get<std::string>() << "\n";
    EXPECT_EQ(*vendor, "google");

    auto logged = s.evaluate("console.log('hello', 42); 'done'", 5);
    ASSERT_TRUE(logged.ok()) << logged.error().describe();
    // The console event is sent before the evaluate reply, so it is already collected.
    bool seen = false;
    for (const auto& line : s.console_messages()) seen |= line == "log: hello 42";
    EXPECT_TRUE(seen) << "console messages: " << s.console_messages().size();

    auto hang = s.evaluate("new Promise(() => {})", 1.0);
    ASSERT_FALSE(hang.ok());
    EXPECT_EQ(hang.error().kind, ErrorKind::timeout);
    EXPECT_EQ(hang.error().stage, Stage::run);
    EXPECT_EQ(hang.error().backend, "browser");

    auto thrown = s.evaluate("throw new Error('boom')", 5);
    ASSERT_FALSE(thrown.ok());
    EXPECT_EQ(thrown.error().kind, ErrorKind::error);
    EXPECT_NE(thrown.error().message.find("boom"), std::string::npos);

    // The session stays usable after a timed-out evaluation.
    auto again = s.evaluate("6*7", 5);
    ASSERT_TRUE(again.ok()) << again.error().describe();
    EXPECT_EQ(*again, 42);
  }
  EXPECT_FALSE(std::filesystem::exists(profile));
  int left = parity::testing::processes_mentioning(profile);
  for (int i = 0; i < 20 && left > 0; ++i) {  // SIGKILL delivery to grandchildren is asynchronous
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = parity::testing::processes_mentioning(profile);
  }
  EXPECT_EQ(left, 0);
}

// Processes of process group `group`, zombies included (they keep their /proc entry until reaped);
// with `zombie_children`, instead this process's children that are zombies.
int members_of_group(pid_t group, bool zombie_children = false) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;  // not a process
    std::ifstream stat(e.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(text.c_str() + close + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
    n += zombie_children ? (ppid == ::getpid() && state == 'Z') : pgrp == group;
  }
  return n;
}

// Chromium's helpers lingered as zombies for about 2 s after the session was gone (until init
// reaped them). The destructor now reaps every process of the browser's group before it returns.
TEST_F(ChromiumSessionTest, NoProcessOfTheBrowserOutlivesTheSession) {
  pid_t group = 0;
  {
    auto launched = ChromiumSession::launch();
    ASSERT_TRUE(launched.ok()) << launched.error().describe();
    group = (*launched)->pid();
    auto sum = (*launched)->evaluate("1+2", 5);  // a renderer and a GPU process are up
    ASSERT_TRUE(sum.ok()) << sum.error().describe();
    EXPECT_GT(members_of_group(group), 1);
  }
  EXPECT_EQ(members_of_group(group), 0) << "no process of the browser's group, zombie or not, is left";
  EXPECT_EQ(members_of_group(0, true), 0) << "no zombie is left to this process either";
}

TEST_F(ChromiumSessionTest, MissingBinaryIsUnavailable) {
  ChromiumOptions options;
  options.executable = "/nonexistent/chromium";
  auto launched = ChromiumSession::launch(options);
  ASSERT_FALSE(launched.ok());
  EXPECT_EQ(launched.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(launched.error().stage, Stage::create_env);
  EXPECT_EQ(launched.error().backend, "browser");
}

TEST_F(ChromiumSessionTest, PageCrashIsCrashed) {
  auto launched = ChromiumSession::launch();
  ASSERT_TRUE(launched.ok()) << launched.error().describe();
  ChromiumSession& s = **launched;
  [[maybe_unused]] auto crash = s.command("Page.crash", nlohmann::json::object(), 5);
  auto after = s.evaluate("1", 5);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().kind, ErrorKind::crashed) << after.error().describe();
}

}  // namespace
}  // namespace parity::backend::browser
