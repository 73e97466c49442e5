// core/run_lock.h: a lock that keeps two Parity runs from writing the same folder at once (two
// sweeps appending the same cells to one results file, two hunts to one journal).
//
// A POSIX record lock (fcntl F_SETLK) on a lock file: the whole file for a run that owns the
// folder, one byte for a run that owns one slot of it (sweep --cell K), so slots run side by side
// while a whole run excludes them all. The kernel drops the lock when the process dies, however it
// dies, so there is nothing stale to clean up; F_GETLK names the holder's PID for the refusal.
// Record locks belong to the process: a second lock of the same file in the same process does not
// conflict (one run per process is the CLI's case), and the file is opened only here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "parity/result.h"

namespace parity {

class RunLock {
 public:
  // Locks `lock_file` (created if missing) for writing: the whole file, or only `slot` (slot K
  // locks byte K + 1, which conflicts with the whole-file lock and with slot K only). `what` names
  // the folder in the refusal: ErrorKind::unavailable at Stage::write_output, naming the holder's
  // PID; io errors when the lock file cannot be created.
  static Result<RunLock> acquire(const std::filesystem::path& lock_file, const std::string& what,
                                 std::optional<uint64_t> slot = std::nullopt);

  RunLock(RunLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RunLock& operator=(RunLock&& o) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock() { release(); }

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  void release() noexcept;
  int fd_ = -1;
};

// The file name sweep and hunt lock in their folders.
inline constexpr const char* kRunLockName = ".parity-lock";

}  // namespace parity
