#include "core/process_group_cpu.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace parity {

bool read_process_cpu(pid_t pid, pid_t& group, double& cpu_s) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "r"), &std::fclose);
  if (!f) return false;
  char buf[1024];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f.get());
  buf[n] = '\0';
  // The command name (field 2) is in parentheses and may hold spaces: fields resume after the
  // last ')'. Then: state(3) ppid(4) pgrp(5) ... utime(14) stime(15).
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return false;
  ++p;
  unsigned long long fields[13] = {};
  char state = 0;
  if (std::sscanf(p, " %c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &state, &fields[0],
                  &fields[1], &fields[2], &fields[3], &fields[4], &fields[5], &fields[6], &fields[7],
                  &fields[8], &fields[9], &fields[10], &fields[11]) != 13)
    return false;
  static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  group = static_cast<pid_t>(fields[1]);                         // field 5
  cpu_s = static_cast<double>(fields[10] + fields[11]) / ticks;  // fields 14 + 15
  return true;
}

double ProcessGroupCpu::sample() {
  std::map<pid_t, double> now;
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), &::closedir);
  if (!proc) return total_s_;
  while (const dirent* entry = ::readdir(proc.get())) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    pid_t group = 0;
    double cpu = 0;
    if (read_process_cpu(static_cast<pid_t>(pid), group, cpu) && group == group_)
      now[static_cast<pid_t>(pid)] = cpu;
  }
  if (started_) {
    for (const auto& [pid, cpu] : now) {
      const auto it = last_.find(pid);
      const double before = it == last_.end() ? 0.0 : it->second;  // a new member counts from 0
      if (cpu > before) total_s_ += cpu - before;
    }
  }
  started_ = true;
  last_ = std::move(now);
  return total_s_;
}

}  // namespace parity
