// cli/input_options.h: the input flags every model-running verb shares (--dim, --shape, --range,
// --input, --resize, --seed), declared and parsed once so probe, bisect and later verbs spell
// them the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/result.h"
#include "probe/input_plan.h"

namespace parity::cli {

struct InputArgs {
  std::vector<std::string> dims, shapes, ranges, inputs, resizes;
  uint64_t seed = 0;
  std::string load_io;         // --load-io DIR
  std::string max_input_size;  // --max-input-size SIZE ("4G")
};

void add_input_options(CLI::App& cmd, InputArgs& a);

// Parses the flags into settings; errors are bad_input at parse_args naming the flag.
Result<probe::InputSettings> build_input_settings(const InputArgs& a);

// The flags as command-line words, for the repro commands verbs print (--seed always, so the
// command pins the inputs even if the default changes).
std::vector<std::string> input_flags(const InputArgs& a);

}  // namespace parity::cli
