// The HTML rendering of a Document: one self-contained page.
#include <fmt/format.h>

#include "core/text.h"
#include "report/document.h"

namespace parity::report {
namespace {

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1a1a1a; max-width: 1400px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.subtitle { color: #555; margin-bottom: 16px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.verdict-match { background: #dff3e3; } .verdict-mismatch { background: #f9d6d5; }
.verdict-inconclusive { background: #fff1c2; } .verdict-error { background: #e8d9f4; }
.verdict-reference { background: #eeeeee; }
.rule { font-weight: 600; white-space: nowrap; } .detail { color: #444; font-size: 12px; }
code, pre { font: 12px/1.4 ui-monospace, monospace; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: 8px; overflow-x: auto; }
.pictures { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
figure { margin: 0; } figcaption { font-size: 12px; color: #444; max-width: 340px; }
img.picture, img.heatmap { image-rendering: pixelated; border: 1px solid #ccc; }
.chart { margin: 8px 0; }
.note { color: #555; font-size: 12px; }
)css";

std::string data_attributes(const DataAttributes& data) {
  std::string out;
  for (const auto& [key, value] : data) out += fmt::format(" data-{}=\"{}\"", key, html_escape(value));
  return out;
}

std::string cell_html(const Cell& c, bool header) {
  std::string classes = c.tone.empty() ? "" : "verdict verdict-" + c.tone;
  std::string attrs = classes.empty() ? "" : " class=\"" + classes + "\"";
  if (!c.fill.empty()) attrs += " style=\"background:" + html_escape(c.fill) + "\"";
  attrs += data_attributes(c.data);
  std::string body = html_escape(c.text);
  if (!c.tone.empty() && !header) body = "<span class=\"rule\">" + body + "</span>";
  if (!c.detail.empty()) body += "<div class=\"detail\">" + html_escape(c.detail) + "</div>";
  const char* tag = header ? "th" : "td";
  return fmt::format("<{0}{1}>{2}</{0}>", tag, attrs, body);
}

struct BlockHtml {
  std::string operator()(const Paragraph& p) const {
    return p.css_class.empty() ? "<p>" + html_escape(p.text) + "</p>"
                               : "<div class=\"" + p.css_class + "\">" + html_escape(p.text) + "</div>";
  }
  std::string operator()(const Subheading& h) const { return "<h3>" + html_escape(h.text) + "</h3>"; }
  std::string operator()(const Table& t) const {
    std::string html = t.css_class.empty() ? "<table>" : "<table class=\"" + t.css_class + "\">";
    if (!t.columns.empty()) {
      html += "<tr>";
      for (const auto& c : t.columns) html += "<th>" + html_escape(c) + "</th>";
      html += "</tr>";
    }
    for (const Row& r : t.rows) {
      html += "<tr" + data_attributes(r.data) + ">";
      for (std::size_t i = 0; i < r.cells.size(); ++i) html += cell_html(r.cells[i], r.header && i == 0);
      html += "</tr>";
    }
    return html + "</table>";
  }
  std::string operator()(const Chart& c) const { return c.svg; }
  std::string operator()(const Gallery& g) const {
    std::string html = "<div class=\"pictures\">";
    for (const Picture& p : g.pictures)
      html += fmt::format(
          "<figure><img class=\"{}\" width=\"{}\" height=\"{}\" alt=\"{}\" "
          "src=\"data:image/png;base64,{}\"><figcaption>{}</figcaption></figure>",
          p.css_class, p.width, p.height, html_escape(p.caption), base64_encode(p.png),
          html_escape(p.caption));
    return html + "</div>";
  }
  std::string operator()(const BulletList& l) const {
    std::string html = "<ul>";
    for (const auto& item : l.items) html += "<li>" + html_escape(item) + "</li>";
    return html + "</ul>";
  }
  std::string operator()(const Commands& c) const {
    std::string html = "<pre class=\"commands\">";
    for (const auto& line : c.lines) html += html_escape(line) + "\n";
    return html + "</pre>";
  }
};

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

std::string render_html(const Document& doc) {
  std::string html = fmt::format(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{}</title><style>{}</style></head><body>\n<h1>{}</h1><div class=\"subtitle\">{}</div>\n",
      html_escape(doc.title), kStyle, html_escape(doc.title), html_escape(doc.subtitle));
  for (const Section& s : doc.sections) {
    if (s.blocks.empty()) continue;
    html += "<section" + data_attributes(s.data) + ">";
    if (!s.heading.empty()) html += "<h2>" + html_escape(s.heading) + "</h2>";
    for (const Block& b : s.blocks) html += std::visit(BlockHtml{}, b);
    html += "</section>\n";
  }
  return html + "</body></html>\n";
}

}  // namespace parity::report
