// Issue 44: names a model holds reach the terminal escaped. trust_escape_names (models_trust.py)
// names its input, output and node with OSC 0 (retitle), OSC 52 (clipboard), CSI 2K + CR (rewrite
// the verdict line) and a C1 CSI; no verb's text may carry one of those bytes raw, while its JSON
// keeps the names exact.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/json_file.h"
#include "support/run_parity.h"

namespace parity {
namespace {

using nlohmann::json;

const std::string kModel = std::string(PARITY_TEST_MODELS) + "/trust_escape_names.onnx";
const std::string kInput = "x\x1b]0;pwned\x07";

// The first control byte of `text` other than '\n' and '\t' (C0, DEL, or C1 as UTF-8), or -1.
int raw_control(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return c;
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9f)
      return static_cast<unsigned char>(text[i + 1]);
  }
  return -1;
}

TEST(TerminalEscape, ModelNamesReachTheTerminalEscaped) {
  testing::TempDir tmp;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", kModel},
        {"probe", kModel, "--backends", "cpu", "--json", tmp.str() + "/probe.json"},
        {"lint", kModel},
        // An error quoting the model's names goes to stderr through the same gate.
        {"probe", kModel, "--backends", "cpu", "--shape", "nosuch=1,4"}}) {
    const auto r = testing::run_parity(args);
    SCOPED_TRACE(args[0] + " exit " + std::to_string(r.exit_code));
    EXPECT_EQ(raw_control(r.output), -1) << r.output;
    // Each verb names the input or the node, escaped.
    EXPECT_TRUE(r.output.find("\\x1b]0;pwned\\x07") != std::string::npos ||
                r.output.find("conv\\x1b[2K\\u009b31m") != std::string::npos)
        << "shown escaped\n"
        << r.output;
  }
  // JSON stays exact: the name as the model has it.
  const json j = testing::read_json(tmp.str() + "/probe.json");
  EXPECT_NE(j.dump().find(json(kInput).dump().substr(1, 8)), std::string::npos) << j.dump().substr(0, 400);
  bool exact = false;
  for (const auto& b : j.value("backends", json::array()))
    for (const auto& row : b.value("outputs", json::array()))
      if (row.value("name", "").find("\x1b[2K\r") != std::string::npos) exact = true;
  EXPECT_TRUE(exact) << j.dump().substr(0, 600);
}

}  // namespace
}  // namespace parity
