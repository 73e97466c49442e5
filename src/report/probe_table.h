// report/probe_table.h: the human-readable probe result: one row per backend that a person can
// read in five seconds (status, worst output, the numbers that show why), then details only
// for rows that need them (errors with their hint, mismatch rules, adapters).
#pragma once

#include <string>

#include "probe/probe.h"

namespace parity::report {

std::string probe_table(const probe::ProbeReport& report);

}  // namespace parity::report
