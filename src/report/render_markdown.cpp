// The Markdown rendering of a Document: GitHub-flavoured tables, pictures and charts as files
// beside the text (an upstream issue takes them as attachments).
#include <fmt/format.h>

#include <algorithm>

#include "report/document.h"

namespace parity::report {
namespace {

// Text as Markdown shows it: no HTML tags (a "<note>" would vanish on GitHub), and, in a table cell
// or list item, no line breaks and no bare pipes.
std::string inline_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r')
      out += ' ';
    else if (c == '|')
      out += "\\|";
    else if (c == '<')
      out += "&lt;";
    else
      out += c;
  }
  return out;
}

std::string prose(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '<' ? std::string("&lt;") : std::string(1, c);
  return out;
}

std::string cell_markdown(const Cell& c) {
  std::string text = inline_text(c.text);
  if (!c.detail.empty()) text += " — " + inline_text(c.detail);
  return text.empty() ? " " : text;
}

std::string table_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& c : cells) line += " " + c + " |";
  return line + "\n";
}

class MarkdownWriter {
 public:
  explicit MarkdownWriter(std::string_view stem) : stem_(stem) {}

  std::string operator()(const Paragraph& p) {
    return (p.css_class == "note" ? "_" + prose(p.text) + "_" : prose(p.text)) + "\n\n";
  }
  std::string operator()(const Subheading& h) { return "### " + inline_text(h.text) + "\n\n"; }
  std::string operator()(const Table& t) {
    std::size_t width = t.columns.size();
    for (const Row& r : t.rows) width = std::max(width, r.cells.size());
    if (width == 0) return "";
    std::vector<std::string> header;
    for (const auto& c : t.columns) header.push_back(inline_text(c));
    header.resize(width, " ");
    std::string md = table_row(header) + table_row(std::vector<std::string>(width, "---"));
    for (const Row& r : t.rows) {
      std::vector<std::string> cells;
      for (std::size_t i = 0; i < r.cells.size(); ++i) {
        const std::string text = cell_markdown(r.cells[i]);
        cells.push_back(r.header && i == 0 ? "**" + text + "**" : text);
      }
      cells.resize(width, " ");
      md += table_row(cells);
    }
    return md + "\n";
  }
  std::string operator()(const Chart& c) {
    const std::string name = attach("svg", c.svg);
    return fmt::format("![{}]({})\n\n", inline_text(c.title), name);
  }
  std::string operator()(const Gallery& g) {
    std::string md;
    for (const Picture& p : g.pictures)
      md += fmt::format("![{0}]({1})<br>_{0}_\n\n", inline_text(p.caption), attach("png", p.png));
    return md;
  }
  std::string operator()(const BulletList& l) {
    std::string md;
    for (const auto& item : l.items) md += "- " + inline_text(item) + "\n";
    return md + "\n";
  }
  std::string operator()(const Commands& c) {
    std::string md = "```sh\n";
    for (const auto& line : c.lines) md += line + "\n";
    return md + "```\n\n";
  }

  std::vector<std::pair<std::string, std::string>> take_attachments() { return std::move(attachments_); }

 private:
  std::string attach(std::string_view extension, const std::string& contents) {
    std::string name = fmt::format("{}-{}.{}", stem_, attachments_.size() + 1, extension);
    attachments_.emplace_back(name, contents);
    return name;
  }

  std::string stem_;
  std::vector<std::pair<std::string, std::string>> attachments_;
};

}  // namespace

MarkdownFiles render_markdown(const Document& doc, std::string_view stem) {
  MarkdownWriter writer(stem);
  std::string md = "# " + inline_text(doc.title) + "\n\n";
  if (!doc.subtitle.empty()) md += prose(doc.subtitle) + "\n\n";
  for (const Section& s : doc.sections) {
    if (s.blocks.empty()) continue;
    if (!s.heading.empty()) md += "## " + inline_text(s.heading) + "\n\n";
    for (const Block& b : s.blocks) md += std::visit(writer, b);
  }
  return {md, writer.take_attachments()};
}

}  // namespace parity::report
