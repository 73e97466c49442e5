// report/probe_document.h: `parity probe --html/--markdown FILE`: the probe as a report: the
// backends with their adapters, a backend x output grid of colour-coded verdicts with the failing
// rule, and for every image-like output the per-channel means of each backend against the
// reference, the pictures side by side and an amplified difference heat map, so an all-black
// channel or a "locally zero" band is obvious at a glance. Needs ProbeOptions::keep_outputs.
#pragma once

#include "probe/probe.h"
#include "report/document.h"

namespace parity::report {

Document probe_document(const probe::ProbeReport& report);

}  // namespace parity::report
