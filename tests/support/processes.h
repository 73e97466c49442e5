// tests/support/processes.h: finding live processes by their command line, for tests that prove
// no child (worker, Chromium helper) outlives its owner.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace parity::testing {

// Live processes whose command line mentions `needle` (Chromium's carry their profile path).
inline int processes_mentioning(const std::string& needle) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(needle) != std::string::npos) ++count;
  }
  return count;
}

}  // namespace parity::testing
