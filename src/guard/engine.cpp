#include "guard/engine.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "backend/ort/ort_session.h"
#include "isolate/isolated_runner.h"

#ifndef PARITY_WORKER_EXE
#error "PARITY_WORKER_EXE must be defined by the build (src/CMakeLists.txt)"
#endif

namespace parity::guard {
namespace {

class InProcessEngine final : public Engine {
 public:
  explicit InProcessEngine(std::unique_ptr<backend::ort::Session> session) : session_(std::move(session)) {}

  Result<backend::RunResult> run(const std::vector<NamedTensor>& inputs) override {
    static const std::vector<std::string> all_outputs;
    return session_->run(backend::ort::RunView{inputs, all_outputs});
  }
  std::string runtime_version() const override { return session_->opened().runtime_version; }
  std::string adapter() const override { return session_->opened().adapter; }
  backend::KeyValues properties() const override { return session_->opened().properties; }

 private:
  std::unique_ptr<backend::ort::Session> session_;
};

class IsolatedEngine final : public Engine {
 public:
  IsolatedEngine(backend::BackendSpec spec, std::filesystem::path model, EngineSettings settings)
      : spec_(std::move(spec)), model_(std::move(model)), settings_(std::move(settings)) {}

  Result<backend::RunResult> run(const std::vector<NamedTensor>& inputs) override {
    backend::RunRequest request;
    request.model_path = model_.string();
    request.inputs = inputs;
    isolate::IsolationLimits limits;
    limits.timeout_s = settings_.timeout_s;
    limits.max_memory_bytes = spec_.max_memory_bytes;
    isolate::WorkerLaunch launch;
    launch.worker_exe = settings_.worker_exe.string();
    launch.test_fault = settings_.fault;
    isolate::IsolatedRun r = isolate::run_isolated(spec_, request, limits, launch);
    if (r.result.ok()) {
      std::lock_guard lock(mutex_);
      runtime_version_ = r.result->runtime_version;
      adapter_ = r.result->adapter;
      properties_ = r.result->properties;
    }
    return std::move(r.result);
  }
  std::string runtime_version() const override {
    std::lock_guard lock(mutex_);
    return runtime_version_;
  }
  std::string adapter() const override {
    std::lock_guard lock(mutex_);
    return adapter_;
  }
  backend::KeyValues properties() const override {
    std::lock_guard lock(mutex_);
    return properties_;
  }

 private:
  backend::BackendSpec spec_;
  std::filesystem::path model_;
  EngineSettings settings_;
  mutable std::mutex mutex_;
  std::string runtime_version_, adapter_;
  backend::KeyValues properties_;
};

}  // namespace

std::filesystem::path default_worker_exe() {
  if (const char* env = std::getenv("PARITY_WORKER"); env != nullptr && *env != '\0') return env;
  // Installed: lib/libparity_guard.so beside bin/parity. Built: this code sits in a binary of
  // build/bin, beside build/bin/parity. Else the build tree this library came from.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&default_worker_exe), &info) != 0 && info.dli_fname != nullptr) {
    std::error_code ec;
    const auto beside = std::filesystem::path(info.dli_fname).parent_path().parent_path() / "bin" / "parity";
    if (std::filesystem::is_regular_file(beside, ec)) return beside;
  }
  return PARITY_WORKER_EXE;
}

Result<std::unique_ptr<Engine>> open_engine(const backend::BackendSpec& spec,
                                            const std::filesystem::path& model,
                                            const EngineSettings& settings) {
  if (settings.isolated) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(settings.worker_exe, ec))
      return Error{spec.label,
                   Stage::spawn_worker,
                   ErrorKind::unavailable,
                   "isolated mode needs the parity worker executable, and '" + settings.worker_exe.string() +
                       "' is not a file",
                   "set GuardOptions::worker_exe or PARITY_WORKER to the installed `parity`",
                   0};
    return std::unique_ptr<Engine>(std::make_unique<IsolatedEngine>(spec, model, settings));
  }
  PARITY_ASSIGN_OR_RETURN(session, backend::ort::Session::open(spec, model.string()));
  return std::unique_ptr<Engine>(std::make_unique<InProcessEngine>(std::move(session)));
}

}  // namespace parity::guard
