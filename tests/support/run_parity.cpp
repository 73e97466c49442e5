#include "support/run_parity.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/child_process.h"

namespace parity::testing {

CommandResult run_parity(const std::vector<std::string>& args,
                         const std::vector<std::pair<std::string, std::string>>& env, double timeout_s) {
  std::vector<std::string> argv{PARITY_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, env, timeout_s);
}

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env, double timeout_s) {
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

std::string write_mock_icd_manifest(const std::string& dir) {
  const std::string path = dir + "/mock_icd.json";
  std::ofstream(path) << R"({"file_format_version": "1.0.0", "ICD": {"library_path": )"
                      << R"("/usr/lib/chromium/libVkICD_mock_icd.so", "api_version": "1.3.0"}})"
                      << "\n";
  return path;
}

}  // namespace parity::testing
