#include "backend/ort/ort_backend.h"

#include "backend/ort/ort_session.h"

namespace parity::backend::ort {
namespace {

// A worker's backend: every request opens a session of its own and releases it when done.
class OrtBackend final : public Backend {
 public:
  OrtBackend(BackendSpec spec, OrtBackendSeams seams) : spec_(std::move(spec)), seams_(seams) {}

  const BackendSpec& spec() const override { return spec_; }

  Result<RunResult> run(const RunRequest& request, const StageObserver& observe) override {
    OpenOptions open;
    open.api = seams_.api;
    open.observe = observe;
    open.fault = seams_.fault;
    if (!open.fault) {
      auto from_env = test_fault_from_env();
      if (!from_env.ok()) {
        Error e = from_env.error();
        e.backend = spec_.label.empty() ? spec_.ep : spec_.label;
        return e;
      }
      open.fault = *from_env;
    }
    PARITY_ASSIGN_OR_RETURN(session, Session::open(spec_, request.model_path, std::move(open)));
    PARITY_ASSIGN_OR_RETURN(result, session->run(request, observe));
    RunRequest next;  // each further input set, on the same session (no warm-up: it is warm)
    next.model_path = request.model_path;
    next.output_names = request.output_names;
    for (const auto& inputs : request.more_inputs) {
      next.inputs = inputs;
      PARITY_ASSIGN_OR_RETURN(more, session->run(next, observe));
      result.more_outputs.push_back(std::move(more.outputs));
    }
    return result;
  }

 private:
  BackendSpec spec_;
  OrtBackendSeams seams_;
};

}  // namespace

std::unique_ptr<Backend> make_ort_backend(BackendSpec spec, OrtBackendSeams seams) {
  return std::make_unique<OrtBackend>(std::move(spec), seams);
}

}  // namespace parity::backend::ort
