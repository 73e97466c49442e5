// classify_page_failure on real onnxruntime-web messages: tests/fixtures/browser/web_errors.json.
#include "backend/browser/web_errors.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace parity::backend::browser {
namespace {

TEST(WebErrors, RealMessagesGetTheirKinds) {
  std::ifstream in(std::string(PARITY_FIXTURES) + "/browser/web_errors.json");
  const auto fx = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(fx.is_object()) << "web_errors.json is not valid JSON";
  ASSERT_GE(fx["cases"].size(), 10u);
  for (const auto& c : fx["cases"]) {
    SCOPED_TRACE(c.value("seen", ""));
    const auto stage = stage_from_string(c.value("stage", ""));
    ASSERT_TRUE(stage.has_value());
    const Error e =
        classify_page_failure("web-test", *stage, {c.value("message", ""), c.value("numeric", false)});
    EXPECT_EQ(to_string(e.kind), c.value("kind", "")) << e.describe();
    EXPECT_EQ(e.stage, *stage);
    EXPECT_EQ(e.backend, "web-test");
    EXPECT_FALSE(e.hint.empty()) << "every classified failure says what to try";
    if (c.contains("hint_contains")) {
      EXPECT_NE(e.hint.find(c["hint_contains"].get<std::string>()), std::string::npos) << e.hint;
    }
    // The message is onnxruntime-web's, kept verbatim but for the name of its ORT error code.
    std::string want = c.value("message_contains", c.value("numeric", false) ? "" : c.value("message", ""));
    if (!c.contains("message_contains") && want.find("ERROR_CODE: ") != std::string::npos)
      want = want.substr(want.find("ERROR_MESSAGE"));
    EXPECT_NE(e.message.find(want), std::string::npos) << e.message;
  }
}

}  // namespace
}  // namespace parity::backend::browser
