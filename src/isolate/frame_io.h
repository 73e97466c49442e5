// isolate/frame_io.h: length-prefixed frames over a pipe, the transport of the worker protocol.
//
// A frame is: magic "PRTY" (4 bytes), type (1 byte), payload length (u64 little-endian), payload.
// Tensors travel as raw bytes (no JSON number arrays), so large image outputs cost one copy.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "parity/result.h"

namespace parity::isolate {

enum class FrameType : char {
  request = 'Q',  // parent -> worker: JSON (protocol.h)
  tensor = 'T',   // either way: u32 meta length, JSON meta, raw element bytes
  stage = 'S',    // worker -> parent: the stage the worker is entering (crash attribution)
  result = 'R',   // worker -> parent: JSON RunResult metadata, after the output tensors
  error = 'E',    // worker -> parent: JSON Error; the worker then exits
};

struct Frame {
  FrameType type = FrameType::error;
  std::string payload;
};

// Writes one frame, retrying on EINTR and partial writes. Fails with ErrorKind::io (the peer
// closed the pipe, e.g. because it crashed).
Status write_frame(int fd, FrameType type, const std::string& payload);

// Incremental reader for a non-blocking fd: feed() appends whatever is readable, next() pops
// complete frames. Lets the parent poll the worker's pipe and its stderr together.
class FrameReader {
 public:
  // Reads what is available from `fd`. Returns false at end of file (peer closed).
  // Errors other than EAGAIN/EINTR are reported as io.
  Result<bool> feed(int fd);
  // The next complete frame, if one is buffered. A corrupt stream (bad magic, absurd length)
  // is an io Error: the worker protocol is out of sync and nothing after it can be trusted.
  Result<std::optional<Frame>> next();
  std::size_t buffered() const { return buffer_.size() - offset_; }

 private:
  std::string buffer_;
  std::size_t offset_ = 0;
};

// Blocking read of exactly one frame (the worker side reads its request this way).
Result<Frame> read_frame_blocking(int fd);

}  // namespace parity::isolate
