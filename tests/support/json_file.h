// tests/support/json_file.h: a JSON report written by the binary, read back for assertions. An
// unreadable or malformed file gives a discarded value, which the assertions then reject.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace parity::testing {

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

}  // namespace parity::testing
