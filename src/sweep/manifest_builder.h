// sweep/manifest_builder.h: a capability manifest from a sweep: per backend, the smallest variant
// that was correct in every size at some opt level (the ladder's choice), with the cell that
// proved it; a backend with no such variant is declared disabled, with the reason.
#pragma once

#include <string>
#include <vector>

#include "manifest/manifest.h"
#include "parity/result.h"
#include "sweep/sweep.h"

namespace parity::sweep {

// Hashes every chosen variant file (io error when one is gone). `today` is YYYY-MM-DD.
Result<manifest::Manifest> build_manifest(const SweepPlan& plan, const std::vector<CellResult>& results,
                                          const std::string& today);

}  // namespace parity::sweep
