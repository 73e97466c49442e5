// report/probe_table.h: the human-readable probe result: one row per backend that a person can
// read in five seconds (status, worst output, the numbers that show why), then details only
// for rows that need them (errors with their hint, mismatch rules, adapters).
#pragma once

#include <string>

#include "probe/probe.h"

namespace parity::report {

std::string probe_table(const probe::ProbeReport& report);

// "x float32[1,3,640,640] from receipt.png, ...": the inputs as the table's header and the HTML
// report's subtitle name them.
std::string probe_inputs_text(const probe::ProbeReport& report);

}  // namespace parity::report
