// isolate/frame_io.h: length-prefixed frames over a pipe, the transport of the worker protocol.
//
// A frame is: magic "PRTY" (4 bytes), type (1 byte), payload length (u64 little-endian), payload.
// Payloads are raw bytes: a tensor's elements are written from its own buffer and read straight
// into the buffer the parent keeps (one copy each way), which matters when a bisect round moves
// 586 MB of exposed tensors a side (ViT-B/16).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "parity/result.h"

namespace parity::isolate {

enum class FrameType : char {
  request = 'Q',  // parent -> worker: JSON (protocol.h)
  tensor = 'T',   // either way: raw element bytes, JSON meta, u32 meta length (protocol.h)
  stage = 'S',    // worker -> parent: the stage the worker is entering (crash attribution)
  result = 'R',   // worker -> parent: JSON RunResult metadata, after the output tensors
  error = 'E',    // worker -> parent: JSON Error; the worker then exits
};

inline constexpr std::size_t kFrameHeaderBytes = 4 + 1 + 8;

struct Frame {
  FrameType type = FrameType::error;
  std::vector<std::byte> payload;
  // The payload as text (JSON, a stage name).
  std::string_view text() const { return {reinterpret_cast<const char*>(payload.data()), payload.size()}; }
};

std::span<const std::byte> as_bytes(std::string_view text);

// Writes one frame whose payload is `parts` back to back, without joining them first, retrying on
// EINTR and partial writes. Fails with ErrorKind::io (the peer closed the pipe, e.g. it crashed).
Status write_frame(int fd, FrameType type, std::initializer_list<std::span<const std::byte>> parts);
inline Status write_frame(int fd, FrameType type, std::string_view payload) {
  return write_frame(fd, type, {as_bytes(payload)});
}

// A frame whose header has been read and whose payload is arriving.
struct IncomingFrame {
  Frame frame;
  uint64_t size = 0;       // the payload's length, from the header
  std::size_t filled = 0;  // bytes of it read so far
  bool complete() const { return filled == size; }
  ssize_t read_some(int fd);
};

// Incremental reader for a non-blocking fd: feed() reads whatever is readable, each payload
// straight into its frame's own buffer; next() pops complete frames. Lets the parent poll the
// worker's pipe and its stderr together.
class FrameReader {
 public:
  // Reads what is available from `fd`. Returns false at end of file (peer closed).
  // Errors other than EAGAIN/EINTR are reported as io.
  Result<bool> feed(int fd);
  // The next complete frame, if one has arrived. A corrupt stream (bad magic, absurd length) is
  // an io Error: the worker protocol is out of sync and nothing after it can be trusted.
  Result<std::optional<Frame>> next();

 private:
  std::byte header_[kFrameHeaderBytes] = {};
  std::size_t header_have_ = 0;
  std::optional<IncomingFrame> partial_;
  std::deque<Frame> ready_;
  std::optional<Error> broken_;
};

// Blocking read of exactly one frame (the worker side reads its request this way).
Result<Frame> read_frame_blocking(int fd);

}  // namespace parity::isolate
