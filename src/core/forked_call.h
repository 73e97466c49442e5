// core/forked_call.h: runs a piece of work in a forked copy of this process, so a crash in a
// library we do not control (ONNX's C++ shape inference dies with SIGFPE on a stride-0 Conv of an
// untrusted model) becomes a typed Error instead of killing Parity.
//
// fork() is copy-on-write: the child sees the parent's memory (a parsed model of any size) without
// a copy, may mutate its own view freely, and sends back only the bytes `work` returns (a
// serialized value_info list). The child leaves with _exit: no atexit handlers, no destructors, no
// stdio flushes of the parent's buffers.
#pragma once

#include <functional>
#include <string>

#include "parity/result.h"

namespace parity {

struct ForkedCallOptions {
  Stage stage = Stage::load_model;  // the stage a failure is reported at
  std::string what;                 // names the work in messages: "ONNX shape inference on m.onnx"
  std::string hint;                 // the hint a crash of the child carries (one line)
  int timeout_s = 600;              // a child still running then is killed: ErrorKind::timeout
};

// Runs `work` in a child and returns the bytes it returned. The child dying on a signal (an abort
// from an uncaught exception included) is ErrorKind::crashed with Error::signal set; running past
// the timeout is ErrorKind::timeout; a failed fork is ErrorKind::error. `work` must not touch
// other threads' state (only the calling thread exists in the child); whatever it writes to memory
// stays in the child. Blocks the calling thread; a Ctrl-C stop kills the child (interrupted).
Result<std::string> call_forked(const std::function<std::string()>& work, const ForkedCallOptions& options);

}  // namespace parity
