// core/file_io.h: checked file writes. Every report, repro and saved tensor goes through here, so
// a full disk or a missing folder is an io error naming the file, never a silent half-written one.
#pragma once

#include <filesystem>
#include <string_view>

#include "parity/result.h"

namespace parity {

// Writes `bytes` to `path` through "<path>.tmp-PID" and a rename, so readers see the old file or
// the whole new one. io error at write_output with the OS's reason.
Status write_text_file(const std::filesystem::path& path, std::string_view bytes);

}  // namespace parity
