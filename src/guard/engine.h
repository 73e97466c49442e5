// guard/engine.h: one backend as the guard runtime holds it: a session opened once and run many
// times, in this process or, in isolated mode, in worker processes.
//
// In process, the session is an ort::Session shared by concurrent runs. Isolated, every run is a
// fresh `parity worker` (isolate/isolated_runner.h): a crashing driver kills the worker, never the
// application, and the run comes back as an Error with the signal; the price is a process start,
// a library load and a session creation per run (measured in docs/guard.md).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/test_fault.h"
#include "parity/result.h"

namespace parity::guard {

struct EngineSettings {
  bool isolated = false;
  std::filesystem::path worker_exe;  // isolated: the `parity` that implements `worker`
  double timeout_s = 600;            // isolated: per run
  // Isolated only: a PARITY_TEST_FAULT for the worker (an in-process fault would hit the application).
  std::optional<backend::TestFault> fault;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Thread-safe.
  virtual Result<backend::RunResult> run(const std::vector<NamedTensor>& inputs) = 0;
  // The runtime version and adapter that opening found ("1.30.0", "SwiftShader Device ..."); empty
  // until a run when isolated.
  virtual std::string runtime_version() const = 0;
  virtual std::string adapter() const = 0;
  // What the backend reported about itself ("adapter.limits.maxBufferSize", ...); empty until a
  // run when isolated.
  virtual backend::KeyValues properties() const = 0;
};

// Opens `spec` on `model`. In process this creates the session (load_library .. create_session);
// isolated it only checks that the worker executable exists: the first run starts the backend.
Result<std::unique_ptr<Engine>> open_engine(const backend::BackendSpec& spec,
                                            const std::filesystem::path& model,
                                            const EngineSettings& settings);

// $PARITY_WORKER, else the `parity` executable of the build this library came from.
std::filesystem::path default_worker_exe();

}  // namespace parity::guard
