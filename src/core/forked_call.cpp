#include "core/forked_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/interrupt.h"

namespace parity {
namespace {

// Owns the child until it is reaped: every way out of call_forked kills and reaps it.
struct ForkedChild {
  pid_t pid = -1;
  int read_fd = -1;
  ~ForkedChild() {
    if (read_fd >= 0) ::close(read_fd);
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  // Blocks until the child exits; the raw wait status.
  int reap() {
    int raw = 0;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return raw;
  }
};

[[noreturn]] void run_child(const std::function<std::string()>& work, int write_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const rlimit no_core{0, 0};  // a crash here is expected input, not a core file to keep
  ::setrlimit(RLIMIT_CORE, &no_core);
  // Nor is it the host's crash: a handler inherited across fork (an application's crash reporter,
  // libFuzzer's, a sanitizer's) would file it as one. The child dies of the signal; the parent names it.
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) ::signal(sig, SIG_DFL);
  std::string out;
  try {
    out = work();
  } catch (...) {
    // Never unwinds into the parent's frames (a test runner, a verb's catch) inside the child.
    std::abort();  // the parent reports SIGABRT
  }
  const char* p = out.data();
  std::size_t left = out.size();
  while (left > 0) {
    const ssize_t n = ::write(write_fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(3);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

}  // namespace

Result<std::string> call_forked(const std::function<std::string()>& work, const ForkedCallOptions& o) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return make_error(ErrorKind::error, o.stage, o.what + ": cannot create a pipe: " + std::strerror(errno),
                      "check the open-file limit (ulimit -n)");
  const pid_t parent = ::getpid();
  ForkedChild child;
  child.pid = ::fork();
  if (child.pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return make_error(ErrorKind::error, o.stage, o.what + ": cannot fork: " + std::strerror(err),
                      "check the process and memory limits (ulimit -u, ulimit -v)");
  }
  if (child.pid == 0) {
    ::close(fds[0]);
    run_child(work, fds[1], parent);
  }
  ::close(fds[1]);
  child.read_fd = fds[0];

  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s);
  char buf[1 << 16];
  for (;;) {
    if (interrupted()) return make_error(ErrorKind::interrupted, o.stage, o.what + ": stopped by a signal");
    if (std::chrono::steady_clock::now() > deadline)
      return make_error(ErrorKind::timeout, o.stage,
                        o.what + ": still running after " + std::to_string(o.timeout_s) + " s; stopped",
                        o.hint);
    pollfd p{child.read_fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 200);
    if (ready < 0 && errno != EINTR)
      return make_error(ErrorKind::error, o.stage, o.what + ": poll failed: " + std::strerror(errno));
    if (ready <= 0) continue;
    const ssize_t n = ::read(child.read_fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0)
      return make_error(ErrorKind::error, o.stage, o.what + ": read failed: " + std::strerror(errno));
    if (n == 0) break;  // the child closed its end: it is leaving
    out.append(buf, static_cast<std::size_t>(n));
  }
  const int raw = child.reap();
  if (WIFSIGNALED(raw)) {
    Error e = make_error(ErrorKind::crashed, o.stage,
                         o.what + " crashed: killed by " + signal_name(WTERMSIG(raw)), o.hint);
    e.signal = WTERMSIG(raw);
    return e;
  }
  if (WEXITSTATUS(raw) != 0)  // sanitizer builds turn a fatal signal into an exit code
    return make_error(ErrorKind::crashed, o.stage,
                      o.what + " crashed (exit code " + std::to_string(WEXITSTATUS(raw)) + ")", o.hint);
  return out;
}

}  // namespace parity
