// report/conformance_markdown.h: human-readable views of a conformance report.
#pragma once

#include <string>

#include "conformance/runner.h"

namespace parity::report {

// Per backend: counts per state, ORT version, adapter, fallback; plus the run's wall time.
// Markdown; also what the verb prints on stdout.
std::string conformance_summary(const conformance::ConformanceReport& report);

// One row per op (sorted), one column per backend. A cell is "P/N" (tests passed of N) followed
// by the other non-zero states ("3/4 1 failed"); "—" when the op has no test on that backend.
std::string conformance_op_table(const conformance::ConformanceReport& report);

// Every (test, backend) in a bad state (failed, crashed, timeout, error), with its reason.
std::string conformance_failures(const conformance::ConformanceReport& report);

// The whole document: title, summary, failures, per-op table.
std::string conformance_markdown(const conformance::ConformanceReport& report);

}  // namespace parity::report
