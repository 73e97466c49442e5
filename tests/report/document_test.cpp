// One Document, two renderings that must say the same: the HTML page (escaped, classed, data
// attributes for scripts) and the Markdown for an upstream issue (tables that survive pipes and
// newlines, pictures and charts as attachments named after the file).
#include "report/document.h"

#include <gtest/gtest.h>

#include <cmath>

#include "report/svg_chart.h"

namespace parity::report {
namespace {

Document sample() {
  Table t{"grid", {"backend", "out|put"}, {}};
  t.rows.push_back(Row({{"cpu"}, Cell("reference", "reference")}, {{"backend", "cpu"}}, true));
  t.rows.push_back(Row({{"webgpu"}, Cell("mismatch", "mismatch", "rule allclose: max_abs 0.79\n2 of 3")},
                       {{"backend", "web<gpu>"}}, true));
  Section s{"Outputs", {{"output", "y"}}, {Paragraph("a <note>", "note"), std::move(t)}};
  s.blocks.push_back(Chart{svg_grouped_bars({"ch 0"}, {{"cpu", {1.0}}}, "means"), "means"});
  s.blocks.push_back(Gallery{{Picture("PNG", 2, 3, "cpu picture")}});
  s.blocks.push_back(Commands{{"parity verify repro/ --backend webgpu"}});
  return {"parity probe m.onnx", "inputs x", {std::move(s), Section{"Empty", {}, {}}}};
}

TEST(Document, HtmlEscapesAndMarksVerdictCells) {
  const std::string html = render_html(sample());
  EXPECT_NE(html.find("<section data-output=\"y\"><h2>Outputs</h2>"), std::string::npos) << html;
  EXPECT_NE(html.find("<div class=\"note\">a &lt;note&gt;</div>"), std::string::npos) << html;
  EXPECT_NE(
      html.find("<tr data-backend=\"web&lt;gpu&gt;\"><th>webgpu</th><td class=\"verdict verdict-mismatch\">"
                "<span class=\"rule\">mismatch</span><div class=\"detail\">rule allclose"),
      std::string::npos)
      << html;
  EXPECT_NE(html.find("src=\"data:image/png;base64,UE5H\""), std::string::npos) << html;
  EXPECT_NE(html.find("<pre class=\"commands\">parity verify repro/ --backend webgpu\n</pre>"),
            std::string::npos);
  EXPECT_EQ(html.find("Empty"), std::string::npos) << "a section with nothing in it is left out";
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(Document, MarkdownKeepsTablesWholeAndAttachesPictures) {
  const MarkdownFiles md = render_markdown(sample(), "report");
  EXPECT_NE(md.text.find("# parity probe m.onnx\n\ninputs x\n\n## Outputs\n\n_a &lt;note>_\n\n"),
            std::string::npos)
      << md.text;
  EXPECT_NE(md.text.find("| backend | out\\|put |\n| --- | --- |\n| **cpu** | reference |\n"),
            std::string::npos)
      << md.text;
  EXPECT_NE(md.text.find("| **webgpu** | mismatch — rule allclose: max_abs 0.79 2 of 3 |\n"),
            std::string::npos)
      << md.text;
  ASSERT_EQ(md.attachments.size(), 2u);
  EXPECT_EQ(md.attachments[0].first, "report-1.svg");
  EXPECT_EQ(md.attachments[0].second.rfind("<svg", 0), 0u);
  EXPECT_EQ(md.attachments[1].first, "report-2.png");
  EXPECT_EQ(md.attachments[1].second, "PNG");
  EXPECT_NE(md.text.find("![means](report-1.svg)"), std::string::npos) << md.text;
  EXPECT_NE(md.text.find("![cpu picture](report-2.png)"), std::string::npos) << md.text;
  EXPECT_NE(md.text.find("```sh\nparity verify repro/ --backend webgpu\n```"), std::string::npos) << md.text;
  EXPECT_EQ(md.text.find("Empty"), std::string::npos);
}

TEST(SvgChart, LogScatterDrawsPointsRangesAndMarkers) {
  const std::string svg = svg_log_scatter({{100, 1e-5, "#009E73", "a"},
                                           {400, 0.5, "#D55E00", "b"},
                                           {200, std::nan(""), "", "c"},
                                           {500, HUGE_VAL, "#CC79A7", "failed"}},
                                          "pixels", "cliff", {{250, 400, "partly wrong"}}, {{150, "budget"}});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  std::size_t points = 0;
  for (std::size_t at = svg.find("class=\"point\""); at != std::string::npos;
       at = svg.find("class=\"point\"", at + 1))
    ++points;
  EXPECT_EQ(points, 3u) << "a NaN is left out, an Inf drawn at the top";
  EXPECT_NE(svg.find("class=\"range\""), std::string::npos);
  EXPECT_NE(svg.find(">budget</text>"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#D55E00\""), std::string::npos);
}

}  // namespace
}  // namespace parity::report
