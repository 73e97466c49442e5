// tests/support/run_parity.h: runs the built `parity` binary as a user would, through the same
// ChildProcess the product uses, and captures exit status and output.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

namespace parity::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string output;  // stdout and stderr, interleaved
};

CommandResult run_parity(const std::vector<std::string>& args,
                         const std::vector<std::pair<std::string, std::string>>& env = {},
                         double timeout_s = 600);

// Runs any program (argv[0] an absolute path) the same way, e.g. a script an example ships.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env = {},
                          double timeout_s = 600);

// Runs parity like run_parity, but sends `signal` to it once its output contains `after` (a
// progress line, so the signal lands mid-run whatever the machine's speed), and only once. If the
// text never shows, no signal is sent (the caller's assertions on the output then fail).
CommandResult run_parity_signalled(const std::vector<std::string>& args, const std::string& after, int signal,
                                   const std::vector<std::pair<std::string, std::string>>& env = {},
                                   double timeout_s = 600);

// The same with any action on the running parity's pid (kill one of its workers, say).
CommandResult run_parity_acting(const std::vector<std::string>& args, const std::string& after,
                                const std::function<void(int pid)>& act,
                                const std::vector<std::pair<std::string, std::string>>& env = {},
                                double timeout_s = 600);

// The live child processes of `pid` (its workers).
std::vector<int> children_of(int pid);

// Writes a Vulkan ICD manifest for Chromium's mock driver (no usable adapter for Dawn) into
// `dir` and returns its path.
std::string write_mock_icd_manifest(const std::string& dir);

}  // namespace parity::testing
