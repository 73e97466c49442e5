// chaos/fault_plan.h: which faults one `parity chaos` run walks through.
//
// A plan is an ordered list of named faults (each one PARITY_CHAOS_FAULTS value, see
// chaos/fault_spec.h), from the built-in default, a TOML file, or --fault on the command line.
// TOML form (schema "parity.chaos-plan/1"):
//   [[fault]]
//   name = "pipeline-null"                  # optional; default: the spec itself
//   spec = "vkCreateComputePipelines:null"  # required
//   why  = "the seed's QNN crash"           # optional, shown in the JSON
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "chaos/fault_spec.h"
#include "parity/result.h"

namespace parity::chaos {

struct PlannedFault {
  std::string name;  // unique within the plan; names the row
  std::string spec;  // the PARITY_CHAOS_FAULTS value for the worker
  std::string why;   // what real stack this imitates (optional)
};

struct FaultPlan {
  std::string source;  // "built-in", the TOML path, or "--fault"
  std::vector<PlannedFault> faults;
};

// The default plan: every call with an error and a null handle, device loss at the first and a
// later submit, a probabilistic fault, and each capability mask; every fault class at least once.
FaultPlan default_plan();

// Reads a TOML plan. Errors are bad_input (or io) at parse_args and name the file and entry.
Result<FaultPlan> load_plan(const std::filesystem::path& path);

// A plan of the given specs, each named after itself.
Result<FaultPlan> plan_from_specs(const std::vector<std::string>& specs);

// Checks every spec with the layer's own parser, so a typo fails here and not silently inside
// a worker; names must be unique.
Status validate_plan(const FaultPlan& plan);

}  // namespace parity::chaos
