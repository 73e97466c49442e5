// probe/manifest_setup.h: a manifest's declarations and sweep setup turned back into what runs
// them: backend specs and input settings. `manifest verify` re-measures the evidence with them; the
// guard runtime opens the declared backends and builds its preflight sample with them.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "backend/backend.h"
#include "manifest/manifest.h"
#include "probe/input_plan.h"

namespace parity::probe {

// The spec a declaration was measured with: its label, EP, options and runtime, at `opt_level`.
backend::BackendSpec spec_of(const manifest::Declaration& d, const std::string& opt_level);
// The reference backend as the sweep set it up (label "reference").
backend::BackendSpec spec_of(const manifest::Reference& r);
// The input settings of the sweep; `resolve` maps each recorded file path to the one to read.
probe::InputSettings settings_of(const manifest::Inputs& in,
                                 const std::function<std::filesystem::path(const std::string&)>& resolve);

}  // namespace parity::probe
