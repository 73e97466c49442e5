#include "cli/report_files.h"

#include <filesystem>

namespace parity::cli {

void add_report_options(CLI::App& cmd, ReportFiles& files, const std::string& contents) {
  cmd.add_option(
         "--html", files.html,
         "write the result as one self-contained HTML page (no network, no external assets): " + contents)
      ->type_name("FILE");
  cmd.add_option("--markdown", files.markdown,
                 "write the same report as Markdown fit to paste into an upstream issue, its pictures and "
                 "charts as files beside it (FILE's stem-N.png, -N.svg)")
      ->type_name("FILE");
}

void add_report_documents(VerbOutput& out, const ReportFiles& files, const report::Document& doc) {
  if (!files.html.empty()) out.documents.emplace_back(files.html, report::render_html(doc));
  if (files.markdown.empty()) return;
  const std::filesystem::path md(files.markdown);
  auto rendered = report::render_markdown(doc, md.stem().string());
  // Attachments first: a Markdown file on disk never links to a picture that is not there.
  for (auto& [name, contents] : rendered.attachments)
    out.documents.emplace_back((md.parent_path() / name).string(), std::move(contents));
  out.documents.emplace_back(files.markdown, std::move(rendered.text));
}

}  // namespace parity::cli
