#include "core/run_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace parity {

Result<RunLock> RunLock::acquire(const std::filesystem::path& lock_file, const std::string& what,
                                 std::optional<uint64_t> slot) {
  const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return make_error(ErrorKind::io, Stage::write_output,
                      "cannot create the lock file " + lock_file.string() + ": " + std::strerror(errno),
                      "check that the folder exists and is writable");
  struct flock want {};
  want.l_type = F_WRLCK;
  want.l_whence = SEEK_SET;
  want.l_start = slot ? static_cast<off_t>(*slot + 1) : 0;
  want.l_len = slot ? 1 : 0;  // 0: to the end of the file, however far it grows
  if (::fcntl(fd, F_SETLK, &want) == 0) return RunLock(fd);
  const int err = errno;
  if (err != EACCES && err != EAGAIN) {
    ::close(fd);
    return make_error(ErrorKind::io, Stage::write_output,
                      "cannot lock " + lock_file.string() + ": " + std::strerror(err),
                      "the folder's file system must support POSIX record locks");
  }
  struct flock holder = want;
  const bool known = ::fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK;
  ::close(fd);
  const std::string by = known ? "process " + std::to_string(holder.l_pid) : "another process";
  return make_error(ErrorKind::unavailable, Stage::write_output,
                    what + " is being written by " + by + " (lock " + lock_file.string() + ")",
                    "wait for that run to finish (or stop it), or use another folder; two runs writing one "
                    "folder would duplicate or mix results");
}

RunLock& RunLock::operator=(RunLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

void RunLock::release() noexcept {
  if (fd_ >= 0) ::close(fd_);  // closing drops the record lock
  fd_ = -1;
}

}  // namespace parity
