// guard/task_checks.h: an application's own assertions about one sample's output, beyond the
// manifest's checks: what `parity accept` asks of each backend before a release (seed 002's
// pre-release gate: the upscaled image has the right size, keeps its brightness, is not blurred to
// nothing, keeps its colours, and passes the team's own predicate).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parity/guard.h"
#include "parity/tensor.h"

namespace parity::guard {

struct TaskChecks {
  std::optional<int64_t> scale;           // output H, W = input H, W x this
  std::optional<double> keep_brightness;  // |mean(out) - mean(in)| at most this
  // The output's mean absolute gradient (per input pixel: times the scale) at least this fraction
  // of the input's: an output blurred or flattened to nothing fails it.
  std::optional<double> min_sharpness;
  // Per channel, the total variation distance between the input's and the output's 32-bin value
  // histograms at most this (0 = the same distribution, 1 = disjoint).
  std::optional<double> max_colour_shift;
  // A shell command run with the output saved as .npy as its last argument: exit 0 passes.
  std::string predicate;
  bool any() const {
    return scale || keep_brightness || min_sharpness || max_colour_shift || !predicate.empty();
  }
};

// Each asked assertion on the first NCHW input and output; an assertion with no image to apply
// to fails, saying so. `scratch` is a folder for the predicate's .npy.
std::vector<CheckResult> run_task_checks(const TaskChecks& task, const std::vector<NamedTensor>& inputs,
                                         const std::vector<NamedTensor>& outputs, const std::string& scratch);

}  // namespace parity::guard
