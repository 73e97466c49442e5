#include "core/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <set>
#include <thread>

extern char** environ;

namespace parity {
namespace {

Error spawn_error(const std::string& what) {
  return make_error(ErrorKind::error, Stage::spawn_worker, what + ": " + std::strerror(errno),
                    "check the process limits (ulimit -u) and that the worker binary exists");
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

ExitStatus decode_status(int raw) {
  ExitStatus s;
  if (WIFSIGNALED(raw)) {
    s.signaled = true;
    s.signal = WTERMSIG(raw);
  } else {
    s.code = WEXITSTATUS(raw);
  }
  return s;
}

// PR_SET_PDEATHSIG fires when the *thread* that forked the child ends, not the process: a
// browser launched by one of conformance's job threads was SIGKILLed the moment that thread
// finished its share, while another thread still used it ("chromium exited during
// Page.navigate"). Every fork therefore happens on this one thread, which lives as long as the
// process. Leaked on purpose: it must outlive static destructors.
class Spawner {
 public:
  static Spawner& instance() {
    static Spawner* spawner = new Spawner;
    return *spawner;
  }
  template <class F>
  auto run(F job) -> decltype(job()) {
    std::packaged_task<decltype(job())()> task(std::move(job));
    auto result = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.emplace_back([&task] { task(); });
    }
    cv_.notify_one();
    return result.get();
  }

 private:
  Spawner() {
    std::thread([this] {
      for (;;) {
        std::function<void()> job;
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [this] { return !jobs_.empty(); });
          job = std::move(jobs_.front());
          jobs_.pop_front();
        }
        job();
      }
    }).detach();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
};

}  // namespace

std::string current_executable() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  return std::string(buf, static_cast<std::size_t>(n));
}

Result<ChildProcess> ChildProcess::spawn(const SpawnOptions& options) {
  return Spawner::instance().run([&options] { return spawn_here(options); });
}

Result<ChildProcess> ChildProcess::spawn_here(const SpawnOptions& options) {
  // Socket pairs rather than pipes: the parent writes with MSG_NOSIGNAL, so a worker that dies
  // before reading its request gives EPIPE, not a SIGPIPE that would kill Parity.
  int req[2], rep[2], log[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, req) != 0) return spawn_error("socketpair");
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rep) != 0) {
    ::close(req[0]), ::close(req[1]);
    return spawn_error("socketpair");
  }
  if (::pipe2(log, O_CLOEXEC) != 0) {
    ::close(req[0]), ::close(req[1]), ::close(rep[0]), ::close(rep[1]);
    return spawn_error("pipe");
  }

  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> argv_store{options.exe};
  argv_store.insert(argv_store.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::set<std::string> removed(options.env_unset.begin(), options.env_unset.end());
  for (const auto& [k, v] : options.env_set) removed.insert(k);
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    if (!removed.count(entry.substr(0, entry.find('=')))) env_store.push_back(std::move(entry));
  }
  for (const auto& [k, v] : options.env_set) env_store.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {req[0], req[1], rep[0], rep[1], log[0], log[1]}) ::close(fd);
    return spawn_error("fork");
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // parent already gone
    // dup2 clears FD_CLOEXEC on the new descriptors, which is what the child must inherit.
    if (::dup2(req[1], 3) < 0 || ::dup2(rep[1], 4) < 0 || ::dup2(log[1], 1) < 0 || ::dup2(log[1], 2) < 0)
      ::_exit(127);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (options.max_data_bytes) {
      struct rlimit lim {
        options.max_data_bytes, options.max_data_bytes
      };
      ::setrlimit(RLIMIT_DATA, &lim);
    }
    ::execve(options.exe.c_str(), argv.data(), envp.data());
    const char msg[] = "parity: cannot exec worker binary\n";
    [[maybe_unused]] auto n = ::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so kill_group works even before the child runs
  ::close(req[1]);
  ::close(rep[1]);
  ::close(log[1]);
  ::fcntl(rep[0], F_SETFL, ::fcntl(rep[0], F_GETFL) | O_NONBLOCK);
  ::fcntl(log[0], F_SETFL, ::fcntl(log[0], F_GETFL) | O_NONBLOCK);
  ChildProcess c;
  c.pid_ = pid;
  c.request_fd_ = req[0];
  c.reply_fd_ = rep[0];
  c.log_fd_ = log[0];
  return c;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    reaped_ = std::exchange(other.reaped_, false);
    status_ = other.status_;
    peak_rss_ = other.peak_rss_;
    request_fd_ = std::exchange(other.request_fd_, -1);
    reply_fd_ = std::exchange(other.reply_fd_, -1);
    log_fd_ = std::exchange(other.log_fd_, -1);
  }
  return *this;
}

ChildProcess::~ChildProcess() { release(); }

void ChildProcess::release() {
  if (pid_ > 0 && !reaped_) {
    kill_group(SIGKILL);
    wait();
  }
  close_fd(request_fd_);
  close_fd(reply_fd_);
  close_fd(log_fd_);
  pid_ = -1;
}

void ChildProcess::close_request() { close_fd(request_fd_); }

std::optional<ExitStatus> ChildProcess::try_wait() {
  if (reaped_) return status_;
  if (pid_ <= 0) return std::nullopt;
  int raw = 0;
  rusage usage{};
  pid_t r = ::wait4(pid_, &raw, WNOHANG, &usage);
  if (r == pid_) {
    reaped_ = true;
    peak_rss_ = static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
    status_ = decode_status(raw);
    kill_group(SIGKILL);  // grandchildren (e.g. a browser's helpers) go with their leader
    return status_;
  }
  return std::nullopt;
}

ExitStatus ChildProcess::wait() {
  if (reaped_ || pid_ <= 0) return status_;
  int raw = 0;
  rusage usage{};
  while (::wait4(pid_, &raw, 0, &usage) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  peak_rss_ = static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
  status_ = decode_status(raw);
  return status_;
}

void ChildProcess::kill_group(int signal) {
  if (pid_ > 0) ::kill(-pid_, signal);
}

uint64_t ChildProcess::resident_bytes() const {
  if (pid_ <= 0 || reaped_) return 0;
  std::ifstream statm("/proc/" + std::to_string(pid_) + "/statm");
  uint64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace parity
