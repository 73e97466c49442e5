// cli/report_files.h: --html FILE and --markdown FILE, the report documents every verb that judges
// something can write besides its text and JSON, declared once so names and help never drift.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/verb.h"
#include "report/document.h"

namespace parity::cli {

struct ReportFiles {
  std::string html;      // --html FILE
  std::string markdown;  // --markdown FILE (pictures and charts as FILE's stem-N.png/.svg beside it)
  bool wanted() const { return !html.empty() || !markdown.empty(); }
};

// `contents` completes the --html help: what the page shows.
void add_report_options(CLI::App& cmd, ReportFiles& files, const std::string& contents);

// Renders `doc` into the files asked for, as out.documents (written by emit() after the JSON).
void add_report_documents(VerbOutput& out, const ReportFiles& files, const report::Document& doc);

}  // namespace parity::cli
