// Colour only for a person at a terminal: verdict cells painted, prose untouched, and a real pseudo
// terminal (not a pipe) is what turns it on, unless NO_COLOR or TERM=dumb says otherwise.
#include "core/terminal_colour.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace parity {
namespace {

TEST(TerminalColour, PaintsVerdictCellsAndLeavesProseAlone) {
  const std::string table =
      "BACKEND  STATUS    MAX_ABS\n"
      "cpu      ok (ref)  -\n"
      "webgpu   mismatch  0.79\n"
      "result: 1 error(s); the error is in webgpu\n";
  const std::string painted = colour_verdicts(table);
  EXPECT_NE(painted.find("\033[32mok\033[0m (ref)"), std::string::npos) << painted;
  EXPECT_NE(painted.find("\033[1;31mmismatch\033[0m  0.79"), std::string::npos) << painted;
  // "error" inside a sentence is not a cell.
  EXPECT_NE(painted.find("result: 1 error(s); the error is in webgpu\n"), std::string::npos) << painted;
  // A word that only starts like a verdict is not one.
  EXPECT_EQ(colour_verdicts("okay  matches\n"), "okay  matches\n");
  EXPECT_EQ(colour_verdicts("hung"), "\033[1;31mhung\033[0m");
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(TerminalColour, OnlyATerminalWithoutNoColorGetsColour) {
  ScopedEnv term("TERM", "xterm-256color");
  ScopedEnv no_color("NO_COLOR", nullptr);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  std::FILE* piped = fdopen(pipe_fds[1], "w");
  ASSERT_NE(piped, nullptr);
  EXPECT_FALSE(colour_wanted(piped));  // a pipe, a file, a CI log
  std::fclose(piped);
  close(pipe_fds[0]);

  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0) GTEST_SKIP() << "no pseudo terminals here";
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  std::FILE* tty = std::fopen(ptsname(master), "w");
  ASSERT_NE(tty, nullptr);
  EXPECT_TRUE(colour_wanted(tty));
  {
    ScopedEnv off("NO_COLOR", "1");
    EXPECT_FALSE(colour_wanted(tty));
  }
  {
    ScopedEnv dumb("TERM", "dumb");
    EXPECT_FALSE(colour_wanted(tty));
  }
  std::fclose(tty);
  close(master);
}

}  // namespace
}  // namespace parity
