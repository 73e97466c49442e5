// core/process_group_cpu.h: CPU time used by a process group (a browser and its helpers), read
// from /proc.
//
// A run's own rusage misses its children until they are reaped, and a browser's renderers and
// GPU process never are while it lives; yet whether they work is what tells a busy page from a
// stalled one (backend/browser/stall_watch.h) and what a benchmark must count. Members that exit
// between samples keep the time they had at the last sample, so the total never goes backwards.
#pragma once

#include <sys/types.h>

#include <map>

namespace parity {

class ProcessGroupCpu {
 public:
  explicit ProcessGroupCpu(pid_t group) : group_(group) {}

  // User + system seconds the group's members used since the first sample() (the first call
  // returns 0 and sets the baseline). Scans /proc: call it about once a second, not in a tight loop.
  double sample();
  // Members seen in the last sample.
  int members() const { return static_cast<int>(last_.size()); }

 private:
  pid_t group_;
  bool started_ = false;
  double total_s_ = 0;
  std::map<pid_t, double> last_;  // pid -> its utime + stime at the last sample
};

// One process's user + system seconds and process group, from /proc/<pid>/stat; false when the
// process is gone or unreadable.
bool read_process_cpu(pid_t pid, pid_t& group, double& cpu_s);

}  // namespace parity
