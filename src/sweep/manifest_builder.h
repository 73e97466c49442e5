// sweep/manifest_builder.h: a capability manifest from a sweep: per backend, the smallest variant
// that was correct in every size at some opt level (the ladder's choice), with the cell that
// proved it; a backend with no such variant is declared disabled, with the reason and its first
// failing cell. The manifest also records how the sweep measured (reference, inputs, limits, every
// backend's setup), and the functions below turn that back into specs and input settings, so
// `manifest verify` re-runs exactly the evidence.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "manifest/manifest.h"
#include "parity/result.h"
#include "probe/input_plan.h"
#include "probe/manifest_setup.h"
#include "sweep/sweep.h"

namespace parity::sweep {

// Hashes the model, every chosen variant file and every input file (io error when one is gone).
// `today` is YYYY-MM-DD.
Result<manifest::Manifest> build_manifest(const SweepPlan& plan, const std::vector<CellResult>& results,
                                          const std::string& today);

// The specs and input settings of a manifest (probe/manifest_setup.h), by their old names here.
using probe::settings_of;
using probe::spec_of;

}  // namespace parity::sweep
