// parity/error.h: the one error value every Parity module returns.
//
// An Error names where a failure happened (backend, stage), what class of failure it is (kind),
// what the failing component said (message) and what a person can do next (hint). It is a plain
// value: it is stored in reports, compared in tests and sent as JSON from worker processes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace parity {

// The class of a failure. Values are append-only: their names are part of the JSON contract.
enum class ErrorKind {
  error,        // the component reported a failure (non-OK status, exception, bad output)
  crashed,      // the worker process died on a signal (Error::signal names it)
  timeout,      // the worker exceeded its time limit and was killed
  oom,          // the worker ran out of memory (allocation failure or memory limit)
  unavailable,  // the backend cannot run here (EP not built in, no adapter, missing feature)
  bad_input,    // the user's model, tensors or options are invalid (CLI exit code 2)
  io,           // a file could not be read or written
  internal,     // a bug in Parity itself: please report it
  interrupted,  // the user stopped the run (Ctrl-C, SIGTERM); what ran so far is kept
};

// Where in a backend's life a failure happened. Append-only, like ErrorKind.
enum class Stage {
  none,
  parse_args,       // command line and option parsing
  load_model,       // reading and validating the ONNX file
  prepare_inputs,   // building or loading input tensors
  spawn_worker,     // starting the isolated worker process
  load_library,     // dlopen of the ONNX Runtime library and API table lookup
  create_env,       // OrtEnv and session options
  append_provider,  // attaching the execution provider to the session options
  create_session,   // graph optimisation, partitioning and kernel creation
  run,              // Session::Run
  read_output,      // reading output tensors back from the backend
  compare,          // comparing outputs with the reference
  write_output,     // writing reports, saved tensors or repro folders
};

std::string_view to_string(ErrorKind kind);
std::string_view to_string(Stage stage);
std::optional<ErrorKind> error_kind_from_string(std::string_view name);
std::optional<Stage> stage_from_string(std::string_view name);

struct Error {
  std::string backend;  // backend name ("cpu", "webgpu", ...); empty when not backend-specific
  Stage stage = Stage::none;
  ErrorKind kind = ErrorKind::error;
  std::string message;  // what the failing component said, verbatim where possible
  std::string hint;     // one line: what to try next; may be empty
  int signal = 0;       // for ErrorKind::crashed: the signal number, else 0

  // "webgpu: append-provider: unavailable: <message> (hint: <hint>)"
  std::string describe() const;
  bool operator==(const Error&) const = default;
};

// Builds an Error without a backend; callers attach one with with_backend().
Error make_error(ErrorKind kind, Stage stage, std::string message, std::string hint = {});

// Signal name as strsignal-independent short form: "SIGSEGV", "SIGABRT", or "signal 42".
std::string signal_name(int signal);

}  // namespace parity
