// backend/ort/ort_session.h: one ONNX Runtime session, created once and run many times.
//
// The backend a worker drives (ort_backend.h) opens one of these per request and throws it away;
// the guard runtime keeps one per backend for the life of an application and runs it from several
// threads. Every ORT object it owns is an Owned<> handle, released in reverse order (session
// before options before env), and every call goes through an OrtGuard, so a failure at any stage
// is an Error naming the backend and the stage.
//
// Includes no ORT header; `struct OrtApi` is only named for the test seam.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/test_fault.h"

struct OrtApi;

// ort::Session is Parity's owner of one ORT session; ::OrtSession is ORT's handle inside it.

namespace parity::backend::ort {

struct OpenOptions {
  // The PARITY_TEST_FAULT to act on (nullopt = none). The caller decides whether the environment's
  // fault applies: a worker honours it, an application's in-process guard never does.
  std::optional<TestFault> fault;
  // Replaces the library's OrtApi table after GetApi (tests swap single functions for stubs).
  const OrtApi* api = nullptr;
  StageObserver observe;  // sees load_library .. create_session
};

// What one run reads, borrowed: the session wraps the caller's tensors, it never copies them.
struct RunView {
  const std::vector<NamedTensor>& inputs;
  const std::vector<std::string>& output_names;  // empty = all graph outputs, in graph order
  int warmup_runs = 0;
};

class Session {
 public:
  // Loads the library, creates the env and options, attaches the EP and creates the session for
  // `model_path` (stages load_library .. create_session).
  static Result<std::unique_ptr<Session>> open(const BackendSpec& spec, const std::string& model_path,
                                               OpenOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs `request` (its model_path is ignored: the session's model runs), stages run and
  // read_output. Thread-safe: ORT allows concurrent Run calls on one session. The first run of a
  // session opened with spec.count_nodes is profiled to count nodes per EP; runs that arrive
  // meanwhile wait for it.
  Result<RunResult> run(const RunView& view, const StageObserver& observe = {});
  Result<RunResult> run(const RunRequest& request, const StageObserver& observe = {}) {
    return run(RunView{request.inputs, request.output_names, request.warmup_runs}, observe);
  }

  // What opening learned: runtime_version, adapter, notes and create_ms (no outputs).
  const RunResult& opened() const;
  const BackendSpec& spec() const;

 private:
  struct State;
  explicit Session(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace parity::backend::ort
