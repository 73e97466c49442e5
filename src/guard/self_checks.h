// guard/self_checks.h: the manifest's output checks (manifest::Checks) applied to one run.
//
// An output that fails any of them is not returned to the application: it is what the seeds'
// silent failures look like from inside (NaNs, a black image, a locally zero band, a shape that
// lost its scale). One pass over each tensor involved, no copies.
#pragma once

#include <vector>

#include "parity/guard.h"
#include "parity/manifest.h"
#include "parity/tensor.h"

namespace parity::guard {

// Every declared check, passed or failed, in a fixed order: finite, scale, mean_shift, range,
// zero_fraction. An image check with no NCHW input/output pair to apply to fails, saying so.
std::vector<CheckResult> run_checks(const manifest::Checks& checks, const std::vector<NamedTensor>& inputs,
                                    const std::vector<NamedTensor>& outputs);

// The first failed check, or nullptr.
const CheckResult* first_failure(const std::vector<CheckResult>& results);

// The rank-4 (NCHW) tensor named `name`, or the first one when `name` is empty; nullptr if none.
const NamedTensor* image_tensor(const std::vector<NamedTensor>& tensors, const std::string& name);

}  // namespace parity::guard
