#include "isolate/frame_io.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

namespace parity::isolate {
namespace {

constexpr char kMagic[4] = {'P', 'R', 'T', 'Y'};
// A single frame larger than this means the stream is corrupt, not that a tensor is big.
constexpr uint64_t kMaxFrameBytes = uint64_t{64} << 30;
// How far a payload's buffer grows ahead of what has arrived (IncomingFrame::read_some).
constexpr std::size_t kReadStep = std::size_t{4} << 20;

Error io_error(const std::string& what) {
  return make_error(ErrorKind::io, Stage::none, what + ": " + std::strerror(errno));
}

Error out_of_sync(const std::string& why) {
  return make_error(ErrorKind::io, Stage::none, "worker protocol out of sync (" + why + ")");
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

// The frame a header announces: its type, and its payload reserved (not yet touched).
Result<IncomingFrame> begin_frame(const std::byte* header) {
  uint64_t size = 0;
  if (std::memcmp(header, kMagic, 4) != 0 || !valid_type(static_cast<char>(header[4])))
    return out_of_sync("bad frame header");
  std::memcpy(&size, header + 5, 8);  // little-endian hosts only (x86_64, aarch64)
  if (size > kMaxFrameBytes) return out_of_sync("frame of " + std::to_string(size) + " bytes");
  IncomingFrame f;
  f.frame.type = static_cast<FrameType>(header[4]);
  f.size = size;
  try {
    f.frame.payload.reserve(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::oom, Stage::none,
                      "a worker frame of " + std::to_string(size) + " bytes does not fit in memory",
                      "expose fewer tensors at once (bisect --batch-bytes) or use smaller inputs");
  }
  return f;
}

}  // namespace

// Reads the next piece of the payload from `fd`: read()'s result. The buffer grows (zero-filled
// once) a step ahead of what has arrived, so a length that lies costs no more memory than the
// bytes actually sent, and each byte is written once by the kernel.
ssize_t IncomingFrame::read_some(int fd) {
  auto& bytes = frame.payload;
  if (filled == bytes.size())
    bytes.resize(bytes.size() +
                 std::min<std::size_t>(kReadStep, static_cast<std::size_t>(size) - bytes.size()));
  const ssize_t n = ::read(fd, bytes.data() + filled, bytes.size() - filled);
  if (n > 0) filled += static_cast<std::size_t>(n);
  return n;
}

std::span<const std::byte> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

Status write_frame(int fd, FrameType type, std::initializer_list<std::span<const std::byte>> parts) {
  std::byte header[kFrameHeaderBytes];
  std::memcpy(header, kMagic, 4);
  header[4] = static_cast<std::byte>(type);
  uint64_t len = 0;
  for (const auto& part : parts) len += part.size();
  std::memcpy(header + 5, &len, 8);
  auto write_all = [fd](std::span<const std::byte> data) -> Status {
    std::size_t done = 0;
    while (done < data.size()) {
      // send() with MSG_NOSIGNAL: a dead peer must yield EPIPE, not a SIGPIPE that kills us.
      ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == ENOTSOCK) n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error("writing to worker pipe");
      done += static_cast<std::size_t>(n);
    }
    return ok_status();
  };
  PARITY_TRY(write_all(header));
  for (const auto& part : parts) PARITY_TRY(write_all(part));
  return ok_status();
}

Result<bool> FrameReader::feed(int fd) {
  while (!broken_) {
    ssize_t n;
    if (!partial_) {
      n = ::read(fd, header_ + header_have_, kFrameHeaderBytes - header_have_);
      if (n > 0 && (header_have_ += static_cast<std::size_t>(n)) == kFrameHeaderBytes) {
        header_have_ = 0;
        auto f = begin_frame(header_);
        if (!f.ok()) {
          broken_ = f.error();
          break;
        }
        partial_ = std::move(f).value();
      }
    } else {
      n = partial_->read_some(fd);
    }
    if (partial_ && partial_->complete()) {  // an empty one as soon as its header is read
      ready_.push_back(std::move(partial_->frame));
      partial_.reset();
    }
    if (n > 0) continue;
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    return io_error("reading worker pipe");
  }
  return true;  // next() reports the corruption once the frames before it are taken
}

Result<std::optional<Frame>> FrameReader::next() {
  if (!ready_.empty()) {
    Frame f = std::move(ready_.front());
    ready_.pop_front();
    return std::optional<Frame>{std::move(f)};
  }
  if (broken_) return *broken_;
  return std::optional<Frame>{};
}

Result<Frame> read_frame_blocking(int fd) {
  auto failed = [](ssize_t n, const char* what) -> Result<bool> {  // true: retry
    if (n < 0 && errno == EINTR) return true;
    if (n < 0) return io_error("reading request pipe");
    return make_error(ErrorKind::io, Stage::none, std::string("request pipe closed mid-") + what);
  };
  std::byte header[kFrameHeaderBytes];
  for (std::size_t have = 0; have < kFrameHeaderBytes;) {
    const ssize_t n = ::read(fd, header + have, kFrameHeaderBytes - have);
    if (n > 0)
      have += static_cast<std::size_t>(n);
    else
      PARITY_TRY(failed(n, "header"));
  }
  PARITY_ASSIGN_OR_RETURN(f, begin_frame(header));
  while (!f.complete()) {
    const ssize_t n = f.read_some(fd);
    if (n <= 0) PARITY_TRY(failed(n, "frame"));
  }
  return std::move(f.frame);
}

}  // namespace parity::isolate
