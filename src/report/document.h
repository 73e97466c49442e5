// report/document.h: what a report says, apart from how it is written. Each verb builds its report
// once as a Document (sections of tables, charts, pictures, notes and commands) and it is rendered
// either as one self-contained HTML page (render_html: styles inline, pictures as data: URIs, charts
// as inline SVG, no script, no network) or as Markdown fit to paste into an upstream issue, with its
// pictures and charts as files beside it (render_markdown). Both come from the same Document, so the
// page and the issue text never say different things.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace parity::report {

// data-* attributes of an HTML element: what tests and scripts select by (data-backend="webgpu").
using DataAttributes = std::vector<std::pair<std::string, std::string>>;

// Cells, rows and paragraphs have constructors (a plain cell is just its text: {"cpu"}), so reports
// read as data and no half-filled aggregate slips by -Wmissing-field-initializers.
struct Cell {
  Cell(std::string text_ = {}) : text(std::move(text_)) {}  // implicit: {"cpu"} is a cell
  Cell(std::string text_, std::string tone_, std::string detail_ = {})
      : text(std::move(text_)), detail(std::move(detail_)), tone(std::move(tone_)) {}
  Cell with_data(DataAttributes attributes) && {
    data = std::move(attributes);
    return std::move(*this);
  }

  std::string text;
  std::string detail;  // a smaller second line
  // A verdict colour: match, mismatch, inconclusive, error, reference, or empty. In HTML the cell
  // gets class "verdict verdict-TONE"; Markdown keeps only the words, so the text must say it too.
  std::string tone;
  std::string fill;  // a heat-map background (#rrggbb), HTML only; the text carries the number
  DataAttributes data;
};

struct Row {
  Row(std::vector<Cell> cells_, DataAttributes data_ = {}, bool header_ = false)
      : cells(std::move(cells_)), data(std::move(data_)), header(header_) {}

  std::vector<Cell> cells;
  DataAttributes data;
  bool header = false;  // the first cell is a row heading (<th>)
};

struct Table {
  std::string css_class;             // what tests select by: "grid", "backends", "culprit"
  std::vector<std::string> columns;  // empty: a key/value table of rows with header cells
  std::vector<Row> rows;
};

struct Chart {
  std::string svg;  // a whole <svg> element (svg_chart.h)
  std::string title;
};

struct Picture {
  Picture(std::string png_, int width_, int height_, std::string caption_ = {},
          std::string css_class_ = "picture")
      : png(std::move(png_)),
        width(width_),
        height(height_),
        caption(std::move(caption_)),
        css_class(std::move(css_class_)) {}

  std::string png;  // the encoded file
  int width = 0, height = 0;
  std::string caption;
  std::string css_class = "picture";  // "picture" or "heatmap"
};
struct Gallery {
  std::vector<Picture> pictures;
};

struct Paragraph {
  Paragraph(std::string text_, std::string css_class_ = {})
      : text(std::move(text_)), css_class(std::move(css_class_)) {}

  std::string text;
  std::string css_class;  // "note" (small, grey), "verdict-error", or empty
};
struct Subheading {
  std::string text;
};
struct BulletList {
  std::vector<std::string> items;
};
struct Commands {  // shell lines a reader copies: repro commands
  std::vector<std::string> lines;
};

using Block = std::variant<Paragraph, Subheading, Table, Chart, Gallery, BulletList, Commands>;

struct Section {
  std::string heading;
  DataAttributes data;
  std::vector<Block> blocks;
};

struct Document {
  std::string title;
  std::string subtitle;
  std::vector<Section> sections;  // an empty section (no blocks) is left out
};

std::string html_escape(std::string_view text);

std::string render_html(const Document& doc);

// The Markdown text and the files it links to (name, contents); the names are `stem`-N.png /
// `stem`-N.svg, relative to the Markdown file, so the folder can be attached to an issue whole.
struct MarkdownFiles {
  std::string text;
  std::vector<std::pair<std::string, std::string>> attachments;
};
MarkdownFiles render_markdown(const Document& doc, std::string_view stem);

}  // namespace parity::report
