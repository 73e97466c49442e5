#include "core/scratch_dir.h"

#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

namespace parity {

Result<ScratchDir> ScratchDir::create(std::string_view prefix, Stage stage, std::size_t max_length) {
  std::error_code ec;
  const std::filesystem::path tmpdir = std::filesystem::temp_directory_path(ec);
  std::vector<std::filesystem::path> bases{ec ? std::filesystem::path("/tmp") : tmpdir};
  if (max_length > 0)
    for (const char* shorter : {"/tmp", "/dev/shm"})
      if (bases.front() != shorter) bases.emplace_back(shorter);
  std::string tried;
  for (const auto& base : bases) {
    std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
    if (max_length > 0 && pattern.size() > max_length) {
      tried += (tried.empty() ? "" : "; ") + base.string() + ": too long a path";
      continue;
    }
    if (::mkdtemp(pattern.data()) != nullptr) return ScratchDir(pattern);
    tried += (tried.empty() ? "" : "; ") + pattern + ": " + std::strerror(errno);
  }
  return make_error(ErrorKind::io, stage, "cannot create a temporary folder (" + tried + ")",
                    max_length > 0
                        ? "this folder needs a path of at most " + std::to_string(max_length) +
                              " characters: set TMPDIR to a short writable folder, or make /tmp writable"
                        : "check that TMPDIR (or /tmp) exists and is writable");
}

ScratchDir& ScratchDir::operator=(ScratchDir&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

void ScratchDir::remove() noexcept {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  path_.clear();
}

}  // namespace parity
