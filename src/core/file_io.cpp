#include "core/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

namespace parity {

Status write_text_file(const std::filesystem::path& path, std::string_view bytes) {
  auto fail = [&](const std::string& what, int err) {
    return make_error(ErrorKind::io, Stage::write_output,
                      "cannot write " + path.string() + ": " + what + " (" + std::strerror(err) + ")",
                      "check that the folder exists, is writable and has space");
  };
  const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return fail("open", errno);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  const int close_errno = errno;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(tmp, ec);
    return fail(written ? "close" : "write", written ? close_errno : write_errno);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return fail("rename", ec.value());
  }
  return ok_status();
}

}  // namespace parity
