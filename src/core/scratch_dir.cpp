#include "core/scratch_dir.h"

#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstring>
#include <system_error>

namespace parity {

Result<ScratchDir> ScratchDir::create(std::string_view prefix, Stage stage) {
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  std::string pattern =
      ((ec ? std::filesystem::path("/tmp") : base) / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return make_error(ErrorKind::io, stage,
                      "cannot create a temporary folder " + pattern + ": " + std::strerror(errno),
                      "check that TMPDIR (or /tmp) exists and is writable");
  return ScratchDir(pattern);
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
