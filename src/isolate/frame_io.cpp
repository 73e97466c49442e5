#include "isolate/frame_io.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace parity::isolate {
namespace {

constexpr char kMagic[4] = {'P', 'R', 'T', 'Y'};
constexpr std::size_t kHeaderBytes = 4 + 1 + 8;
// A single frame larger than this means the stream is corrupt, not that a tensor is big.
constexpr uint64_t kMaxFrameBytes = uint64_t{64} << 30;

Error io_error(const std::string& what) {
  return make_error(ErrorKind::io, Stage::none, what + ": " + std::strerror(errno));
}

bool valid_type(char c) {
  switch (static_cast<FrameType>(c)) {
    case FrameType::request:
    case FrameType::tensor:
    case FrameType::stage:
    case FrameType::result:
    case FrameType::error: return true;
  }
  return false;
}

}  // namespace

Status write_frame(int fd, FrameType type, const std::string& payload) {
  char header[kHeaderBytes];
  std::memcpy(header, kMagic, 4);
  header[4] = static_cast<char>(type);
  uint64_t len = payload.size();
  std::memcpy(header + 5, &len, 8);  // little-endian hosts only (x86_64, aarch64)
  for (const auto& [data, size] : {std::pair{static_cast<const char*>(header), kHeaderBytes},
                                   std::pair{payload.data(), payload.size()}}) {
    std::size_t done = 0;
    while (done < size) {
      // send() with MSG_NOSIGNAL: a dead peer must yield EPIPE, not a SIGPIPE that kills us.
      ssize_t n = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
      if (n < 0 && errno == ENOTSOCK) n = ::write(fd, data + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error("writing to worker pipe");
      done += static_cast<std::size_t>(n);
    }
  }
  return ok_status();
}

Result<bool> FrameReader::feed(int fd) {
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    return io_error("reading worker pipe");
  }
}

Result<std::optional<Frame>> FrameReader::next() {
  if (buffered() < kHeaderBytes) return std::optional<Frame>{};
  const char* p = buffer_.data() + offset_;
  if (std::memcmp(p, kMagic, 4) != 0 || !valid_type(p[4]))
    return make_error(ErrorKind::io, Stage::none, "worker protocol out of sync (bad frame header)");
  uint64_t len;
  std::memcpy(&len, p + 5, 8);
  if (len > kMaxFrameBytes)
    return make_error(ErrorKind::io, Stage::none,
                      "worker protocol out of sync (frame of " + std::to_string(len) + " bytes)");
  if (buffered() < kHeaderBytes + len) return std::optional<Frame>{};
  Frame f{static_cast<FrameType>(p[4]), std::string(p + kHeaderBytes, static_cast<std::size_t>(len))};
  offset_ += kHeaderBytes + static_cast<std::size_t>(len);
  if (offset_ > (1u << 20) && offset_ * 2 > buffer_.size()) {  // compact consumed prefix
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  return std::optional<Frame>{std::move(f)};
}

Result<Frame> read_frame_blocking(int fd) {
  auto read_exact = [fd](char* dst, std::size_t size) -> Status {
    std::size_t done = 0;
    while (done < size) {
      ssize_t n = ::read(fd, dst + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error("reading request pipe");
      if (n == 0) return make_error(ErrorKind::io, Stage::none, "request pipe closed mid-frame");
      done += static_cast<std::size_t>(n);
    }
    return ok_status();
  };
  char header[kHeaderBytes];
  PARITY_TRY(read_exact(header, kHeaderBytes));
  if (std::memcmp(header, kMagic, 4) != 0 || !valid_type(header[4]))
    return make_error(ErrorKind::io, Stage::none, "not a Parity worker frame");
  uint64_t len;
  std::memcpy(&len, header + 5, 8);
  if (len > kMaxFrameBytes) return make_error(ErrorKind::io, Stage::none, "frame too large");
  Frame f{static_cast<FrameType>(header[4]), std::string(static_cast<std::size_t>(len), '\0')};
  PARITY_TRY(read_exact(f.payload.data(), f.payload.size()));
  return f;
}

}  // namespace parity::isolate
