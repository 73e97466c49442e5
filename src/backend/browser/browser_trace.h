// backend/browser/browser_trace.h: a timestamped trace of everything that crosses the browser
// boundary (CDP commands, replies and events, HTTP requests to the page's server, page-side
// marks), for diagnosing runs that wait instead of work (docs/browser.md, "Tracing a run").
//
// Off unless PARITY_BROWSER_TRACE names a file; lines are appended, one per event:
//   "<seconds since first trace line, 6 decimals> <pid> <source> <text>"
// Thread-safe (the web server writes from its own threads). Never fails a run: a trace file
// that cannot be opened disables tracing.
#pragma once

#include <string_view>

namespace parity::backend::browser {

// True when PARITY_BROWSER_TRACE is set (read once per process).
bool trace_enabled();

// Appends one line; `source` is a short tag such as "cdp>", "cdp<", "http", "page".
void trace(std::string_view source, std::string_view text);

}  // namespace parity::backend::browser
