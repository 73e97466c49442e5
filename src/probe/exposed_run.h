// probe/exposed_run.h: the values of chosen intermediate tensors on one backend: MODEL written with
// them as extra outputs (model surgery), run once in an isolated worker on the given inputs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "isolate/backend_runner.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::probe {

// `values` must be top-level node outputs of `model`; the exposed copy is written into `scratch`
// as `file_name`. Node counting is off (one plain run). Returns the values in the order asked.
Result<std::vector<NamedTensor>> run_exposed(const backend::BackendSpec& spec,
                                             const std::filesystem::path& model,
                                             const std::vector<std::string>& values,
                                             const std::vector<NamedTensor>& inputs,
                                             const isolate::IsolationLimits& limits,
                                             const std::filesystem::path& scratch,
                                             const std::string& file_name, isolate::BackendRunner& runner);

}  // namespace parity::probe
