// core/sha256.h: SHA-256 of a file (OpenSSL's EVP), as lowercase hex: how a manifest pins the exact
// model file its declarations were measured on.
#pragma once

#include <filesystem>
#include <string>

#include "parity/result.h"

namespace parity {

// io error at `stage` naming the file when it cannot be read.
Result<std::string> sha256_file(const std::filesystem::path& path, Stage stage = Stage::write_output);

}  // namespace parity
