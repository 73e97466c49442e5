#include "support/run_parity.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "core/child_process.h"

namespace parity::testing {

CommandResult run_parity(const std::vector<std::string>& args,
                         const std::vector<std::pair<std::string, std::string>>& env, double timeout_s) {
  std::vector<std::string> argv{PARITY_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, env, timeout_s);
}

namespace {

CommandResult run_and_act(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env, double timeout_s,
                          const std::string& after, std::function<void(int pid)> act) {
  SpawnOptions so;
  so.exe = argv.at(0);
  so.args.assign(argv.begin() + 1, argv.end());
  so.env_set = env;
  CommandResult r;
  auto child = ChildProcess::spawn(so);
  if (!child.ok()) {
    r.output = child.error().describe();
    return r;
  }
  child->close_request();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[8192];
  for (;;) {
    pollfd p{child->log_fd(), POLLIN, 0};
    ::poll(&p, 1, 100);
    ssize_t n = ::read(child->log_fd(), buf, sizeof buf);
    if (n > 0) {
      r.output.append(buf, static_cast<std::size_t>(n));
      if (act && r.output.find(after) != std::string::npos) {
        act(child->pid());
        act = nullptr;  // once
      }
      continue;
    }
    if (n == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      child->kill_group(SIGKILL);
      r.output += "\n[test harness: timeout]\n";
      break;
    }
  }
  auto status = child->wait();
  r.exit_code = status.signaled ? -1 : status.code;
  r.signal = status.signal;
  return r;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env, double timeout_s) {
  return run_and_act(argv, env, timeout_s, {}, nullptr);
}

CommandResult run_parity_signalled(const std::vector<std::string>& args, const std::string& after, int signal,
                                   const std::vector<std::pair<std::string, std::string>>& env,
                                   double timeout_s) {
  // The parity process only, not its group: it must stop its workers itself.
  return run_parity_acting(
      args, after, [signal](int pid) { ::kill(pid, signal); }, env, timeout_s);
}

CommandResult run_parity_acting(const std::vector<std::string>& args, const std::string& after,
                                const std::function<void(int pid)>& act,
                                const std::vector<std::pair<std::string, std::string>>& env,
                                double timeout_s) {
  std::vector<std::string> argv{PARITY_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_and_act(argv, env, timeout_s, after, act);
}

std::vector<int> children_of(int pid) {
  std::vector<int> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == pid && state != 'Z')
      found.push_back(std::stoi(name));
  }
  return found;
}

std::string write_mock_icd_manifest(const std::string& dir) {
  const std::string path = dir + "/mock_icd.json";
  std::ofstream(path) << R"({"file_format_version": "1.0.0", "ICD": {"library_path": )"
                      << R"("/usr/lib/chromium/libVkICD_mock_icd.so", "api_version": "1.3.0"}})"
                      << "\n";
  return path;
}

}  // namespace parity::testing
