// core/child_process.h: a child process with the worker pipes, owned RAII-style.
//
// The child gets the protocol on dedicated descriptors, not stdio: fd 3 carries requests in,
// fd 4 carries replies out (the same convention as Chromium's --remote-debugging-pipe), and its
// stdout/stderr go to a log pipe, so native libraries printing to stdout cannot corrupt frames.
// The child leads its own process group and dies with its parent (PR_SET_PDEATHSIG, armed from a
// thread that lives as long as the process, so a child outlives the thread that asked for it); the
// destructor kills the group and reaps it, so no worker outlives a ChildProcess.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parity/result.h"

namespace parity {

struct SpawnOptions {
  std::string exe;                                           // absolute path of the program
  std::vector<std::string> args;                             // argv[1..]
  std::vector<std::pair<std::string, std::string>> env_set;  // added/overridden variables
  std::vector<std::string> env_unset;                        // removed variables
  uint64_t max_data_bytes = 0;                               // RLIMIT_DATA for the child; 0 = inherit
};

struct ExitStatus {
  bool signaled = false;
  int code = 0;    // exit code when !signaled
  int signal = 0;  // terminating signal when signaled
};

class ChildProcess {
 public:
  static Result<ChildProcess> spawn(const SpawnOptions& options);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  int request_fd() const { return request_fd_; }  // parent writes; child's fd 3
  int reply_fd() const { return reply_fd_; }      // parent reads (non-blocking); child's fd 4
  int log_fd() const { return log_fd_; }          // parent reads (non-blocking); child's 1 and 2
  void close_request();

  // Reaps the child if it has exited; nullopt while it runs.
  std::optional<ExitStatus> try_wait();
  // Blocks until the child exits.
  ExitStatus wait();
  // Sends `signal` to the child's process group (no-op once reaped).
  void kill_group(int signal);
  // Resident set size of the child in bytes, from /proc; 0 if unknown.
  uint64_t resident_bytes() const;
  // The child's peak resident set size in bytes (the kernel's ru_maxrss, so no sampling gap),
  // known once it is reaped; 0 before.
  uint64_t peak_resident_bytes() const { return peak_rss_; }

 private:
  ChildProcess() = default;
  static Result<ChildProcess> spawn_here(const SpawnOptions& options);  // on the calling thread
  void release();

  pid_t pid_ = -1;
  bool reaped_ = false;
  ExitStatus status_;
  uint64_t peak_rss_ = 0;
  int request_fd_ = -1, reply_fd_ = -1, log_fd_ = -1;
};

// Absolute path of the running executable (/proc/self/exe).
std::string current_executable();

}  // namespace parity
