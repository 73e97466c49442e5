#include "isolate/memory_cap.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <new>
#include <string>

namespace parity::isolate {
namespace {

uint64_t g_cap_bytes = 0;  // RLIMIT_DATA at install time; read by the signal handler
std::atomic<bool> g_allocation_failed{false};

void on_allocation_failure() {
  g_allocation_failed.store(true);
  std::set_new_handler(nullptr);  // as if no handler: the failing new throws (or returns null)
  throw std::bad_alloc();
}

// VmData of this process in bytes, read with async-signal-safe calls only; 0 when unknown.
uint64_t data_bytes_now() {
  char buf[4096];
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* p = std::strstr(buf, "VmData:");
  if (!p) return 0;
  p += 7;
  while (*p == ' ' || *p == '\t') ++p;
  uint64_t kib = 0;
  while (*p >= '0' && *p <= '9') kib = kib * 10 + static_cast<uint64_t>(*p++ - '0');
  return kib * 1024;
}

extern "C" void on_fatal_signal(int signal) {
  const bool near_cap = data_bytes_now() >= g_cap_bytes - g_cap_bytes / 10;
  if (g_allocation_failed.load() || near_cap) {
    char line[128];
    const std::size_t len = kCapCrashMarker.size();
    std::memcpy(line, kCapCrashMarker.data(), len);
    line[len] = '\n';
    (void)!::write(2, line, len + 1);
  }
  // SA_RESETHAND restored the default action: re-raise so the process dies of this signal.
  ::raise(signal);
}

}  // namespace

void note_crashes_at_memory_cap() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_DATA, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return;
  g_cap_bytes = lim.rlim_cur;
  std::set_new_handler(on_allocation_failure);
  for (int s : {SIGSEGV, SIGBUS, SIGABRT}) {
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    ::sigaction(s, &sa, nullptr);
  }
}

std::optional<uint64_t> kernel_oom_kills() {
  std::ifstream in("/proc/vmstat");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value)
    if (key == "oom_kill") return value;
  return std::nullopt;
}

}  // namespace parity::isolate
