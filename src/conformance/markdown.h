// conformance/markdown.h: human-readable views of a conformance report.
#pragma once

#include <string>

#include "conformance/runner.h"

namespace parity::conformance {

// Per backend: counts per state, ORT version, adapter, fallback; plus the run's wall time.
// Markdown; also what the verb prints on stdout.
std::string summary_table(const ConformanceReport& report);

// One row per op (sorted), one column per backend. A cell is "P/N" (tests passed of N) followed
// by the other non-zero states ("3/4 1 failed"); "—" when the op has no test on that backend.
std::string op_table(const ConformanceReport& report);

// Every (test, backend) in a bad state (failed, crashed, timeout, error), with its reason.
std::string failure_list(const ConformanceReport& report);

// The whole document: title, summary, failures, per-op table.
std::string markdown_report(const ConformanceReport& report);

}  // namespace parity::conformance
