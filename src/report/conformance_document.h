// report/conformance_document.h: a conformance run as people read it: the terminal summary and
// the report document.
#pragma once

#include <string>

#include "conformance/diff.h"
#include "conformance/runner.h"
#include "report/document.h"

namespace parity::report {

// Per backend: counts per state, ORT version, adapter, fallback; plus the run's wall time.
// A Markdown table: what the verb prints on stdout.
std::string conformance_summary(const conformance::ConformanceReport& report);

// The report (--html/--markdown): the summary, every (test, backend) in a bad state (failed,
// crashed, timeout, error, flaky) with its reason, and one row per op (sorted), one column per
// backend and version: a cell is "P/N" (tests passed of N) followed by the other non-zero states
// ("1/2 1 failed"), coloured by the worst of them; "—" when the op has no test on that backend.
Document conformance_document(const conformance::ConformanceReport& report);

// `conformance diff --html/--markdown`: what changed between two results, regressions first.
Document conformance_diff_document(const conformance::DiffResult& diff, const std::string& a_path,
                                   const std::string& b_path);

}  // namespace parity::report
