// core/scratch_dir.h: a private folder under the temp directory, removed with everything in it
// when the owner goes away (early returns included). The one way Parity makes temp folders, so a
// run leaves the temp directory as it found it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "parity/result.h"

namespace parity {

class ScratchDir {
 public:
  // mkdtemp under TMPDIR (or /tmp) as "<prefix>-XXXXXX"; io error at `stage` on failure.
  // With `max_length`, the folder's path is at most that many characters: where TMPDIR is too long
  // it goes under /tmp, then /dev/shm (for a program that binds Unix sockets under it, whose paths
  // the kernel caps at 107 bytes: Chromium).
  static Result<ScratchDir> create(std::string_view prefix, Stage stage, std::size_t max_length = 0);

  ScratchDir(ScratchDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  ScratchDir& operator=(ScratchDir&& o) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() { remove(); }

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  explicit ScratchDir(std::filesystem::path p) : path_(std::move(p)) {}
  void remove() noexcept;
  std::filesystem::path path_;
};

}  // namespace parity
