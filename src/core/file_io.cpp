#include "core/file_io.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>

namespace parity {

namespace fs = std::filesystem;

namespace {

constexpr const char* kHint = "check that the folder exists, is writable and has space";

// The descriptor a path names by itself ("-" = 1, /dev/stdout, /dev/fd/N, /proc/self/fd/N), or -1.
int named_descriptor(std::string_view p) {
  if (p == "-" || p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (p.substr(0, prefix.size()) != prefix) continue;
    const std::string_view digits = p.substr(prefix.size());
    int n = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && end == digits.data() + digits.size() && n >= 0) return n;
  }
  return -1;
}

// What a non-file target is, for the refusal ("is a directory, not a file").
const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return nullptr;
}

// The nearest existing ancestor of `folder` (itself included) when it is not a folder, e.g. the
// regular file "out" of "out/repro/".
std::optional<fs::path> file_in_the_way(const fs::path& folder) {
  for (fs::path p = folder; !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? std::nullopt : std::optional<fs::path>(p);
    if (p == p.parent_path()) break;
  }
  return std::nullopt;
}

std::string random_suffix() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(10, 'x');
  for (char& c : s) c = kAlphabet[gen() % (sizeof kAlphabet - 1)];
  return s;
}

}  // namespace

Error OutputFile::failure(std::string_view what, int err) const {
  std::string message = "cannot write " + path_.string() + ": " + std::string(what);
  if (err != 0) message += std::string(" (") + std::strerror(err) + ")";
  return make_error(ErrorKind::io, Stage::write_output, std::move(message), kHint);
}

Result<OutputFile> OutputFile::open(const fs::path& path) {
  OutputFile f;
  f.path_ = path;
  if (path.empty()) return f.failure("no file name given", 0);
  if (const int n = named_descriptor(path.string()); n >= 0) {
    f.fd_ = ::fcntl(n, F_DUPFD_CLOEXEC, 3);
    if (f.fd_ < 0) return f.failure("descriptor " + std::to_string(n) + " is not open", errno);
    return f;
  }
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT && errno != ENOTDIR) return f.failure("cannot look at it", errno);
  if (exists && (S_ISLNK(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
    // In place: a device or pipe is never replaced; a link is written through (header comment).
    struct stat target {};
    if (::stat(path.c_str(), &target) == 0) {
      if (const char* kind = kind_of(target.st_mode))
        return f.failure(std::string("is ") + kind + ", not a file", 0);
    }
    const int trunc =
        S_ISLNK(st.st_mode) && !S_ISFIFO(target.st_mode) && !S_ISCHR(target.st_mode) ? O_TRUNC : 0;
    f.fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | trunc, 0666);
    if (f.fd_ < 0) return f.failure("cannot open it", errno);
    return f;
  }
  if (exists && !S_ISREG(st.st_mode))
    return f.failure(std::string("is ") + kind_of(st.st_mode) + ", not a file", 0);
  // A temporary created exclusively beside the target: O_EXCL never follows a link planted at its
  // name, and the random name cannot be planted ahead.
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  for (int attempt = 0; attempt < 100 && f.fd_ < 0; ++attempt) {
    f.temp_ = folder / ("." + path.filename().string() + ".tmp-" + random_suffix());
    f.fd_ = ::open(f.temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (f.fd_ < 0 && errno != EEXIST) {
      const int err = errno;
      f.temp_.clear();
      if (const auto file = file_in_the_way(folder)) return f.failure(file->string() + " is not a folder", 0);
      return f.failure(err == ENOENT ? "its folder does not exist" : "cannot create a file in its folder",
                       err);
    }
  }
  if (f.fd_ < 0) {
    f.temp_.clear();
    return f.failure("cannot create a temporary file beside it", EEXIST);
  }
  if (exists) (void)::fchmod(f.fd_, st.st_mode & 07777);  // the replacement keeps the file's mode
  return f;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)), temp_(std::move(other.temp_)), fd_(other.fd_) {
  other.fd_ = -1;
  other.temp_.clear();
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temp_ = std::move(other.temp_);
    fd_ = other.fd_;
    other.fd_ = -1;
    other.temp_.clear();
  }
  return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

Status OutputFile::write(std::string_view bytes) {
  if (fd_ < 0) return failure("already closed", 0);
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failure("write failed", n < 0 ? errno : ENOSPC);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok_status();
}

Status OutputFile::copy_from(const fs::path& src) {
  if (fd_ < 0) return failure("already closed", 0);
  const int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return failure("cannot read " + src.string() + " to copy", errno);
  struct stat st {};
  const bool sized = ::fstat(in, &st) == 0;
  off_t left = sized ? st.st_size : 0;
  while (sized && left > 0) {
    const ssize_t n = ::sendfile(fd_, in, nullptr, static_cast<std::size_t>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(in);
      return failure("copy of " + src.string() + " failed", err);
    }
    left -= n;
  }
  const int err = errno;
  ::close(in);
  if (!sized) return failure("cannot read " + src.string() + " to copy", err);
  return ok_status();
}

Status OutputFile::commit() {
  if (fd_ < 0) return failure("already closed", 0);
  if (temp_.empty()) {  // in place
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0 && errno != EINTR) return failure("close failed", errno);
    return ok_status();
  }
  if (::fsync(fd_) != 0) {
    const int err = errno;
    discard();
    return failure("write failed", err);
  }
  const int rc = ::close(fd_);
  const int close_err = errno;
  fd_ = -1;
  if (rc != 0) {
    discard();
    return failure("write failed", close_err);
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    discard();
    return failure("cannot replace it", err);
  }
  temp_.clear();
  // The rename itself reaches the disk with the folder's own sync (best effort: some file systems refuse).
  const fs::path folder = path_.parent_path().empty() ? fs::path(".") : path_.parent_path();
  if (const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return ok_status();
}

Status write_text_file(const fs::path& path, std::string_view bytes) {
  PARITY_ASSIGN_OR_RETURN(f, OutputFile::open(path));
  PARITY_TRY(f.write(bytes));
  return f.commit();
}

Status copy_file_to(const fs::path& src, const fs::path& path) {
  PARITY_ASSIGN_OR_RETURN(f, OutputFile::open(path));
  PARITY_TRY(f.copy_from(src));
  return f.commit();
}

Status append_text_file(const fs::path& path, std::string_view bytes) {
  auto fail = [&](const std::string& what, int err) {
    std::string message = "cannot append to " + path.string() + ": " + what;
    if (err != 0) message += std::string(" (") + std::strerror(err) + ")";
    return make_error(ErrorKind::io, Stage::write_output, std::move(message), kHint);
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    if (const char* kind = kind_of(st.st_mode)) return fail(std::string("it is ") + kind + ", not a file", 0);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) return fail("cannot open it", errno);
  const ssize_t n = bytes.empty() ? 0 : ::write(fd, bytes.data(), bytes.size());
  const int write_err = errno;
  if (n != static_cast<ssize_t>(bytes.size())) {
    ::close(fd);
    return fail("write failed", n < 0 ? write_err : ENOSPC);
  }
  if (S_ISREG(st.st_mode) || st.st_mode == 0) (void)::fsync(fd);
  if (::close(fd) != 0 && errno != EINTR) return fail("close failed", errno);
  return ok_status();
}

bool names_stdout(std::string_view path) { return named_descriptor(path) == 1; }

std::string safe_file_name(std::string_view name) {
  constexpr std::size_t kMaxBytes = 80;
  std::string s;
  for (char c : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    s += keep ? c : '_';
  }
  if (!s.empty() && (s.front() == '.' || s.front() == '-')) s.front() = '_';
  if (s.size() > kMaxBytes) s.resize(kMaxBytes);
  if (s == name && !s.empty()) return s;
  uint64_t h = 14695981039346656037ull;  // FNV-1a of the original: changed names stay distinct
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return (s.empty() ? std::string("_") : s) + "-" + std::string(hex, 8);
}

}  // namespace parity
