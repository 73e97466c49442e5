// The page-reply decoders: tests/fixtures/browser/page_replies.json (malformed replies and what
// each must become), plus every field of real replies swapped for every JSON type.
#include "backend/browser/page_reply.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../../fuzz/page_reply_checks.h"

namespace parity::backend::browser {
namespace {

using nlohmann::json;

json load_cases() {
  std::ifstream in(std::string(PARITY_FIXTURES) + "/browser/page_replies.json");
  return json::parse(in, nullptr, false);
}

// The decoder a fixture names, as "" (decoded), "failure: MESSAGE" or "error: MESSAGE".
std::string decode_named(const std::string& decoder, const json& reply) {
  auto outcome = [](const auto& r) -> std::string { return r.ok() ? "" : "error: " + r.error().message; };
  if (decoder == "envelope") {
    auto r = decode_envelope("run", reply, Stage::run);
    if (r.ok() && *r) return "failure: " + (*r)->message;
    return outcome(r);
  }
  if (decoder == "load") return outcome(decode_load(reply, Stage::load_library));
  if (decoder == "adapter") return outcome(decode_adapter(reply, Stage::append_provider));
  if (decoder == "create") return outcome(decode_create(reply, Stage::create_session));
  if (decoder == "run") return outcome(decode_run(reply, Stage::run));
  if (decoder == "diagnostics") return outcome(decode_diagnostics(reply, Stage::read_output));
  return "unknown decoder " + decoder;
}

TEST(PageReply, FixturesDecodeOrNameTheBadField) {
  const json fx = load_cases();
  ASSERT_TRUE(fx.is_object()) << "page_replies.json is not valid JSON";
  ASSERT_GE(fx["cases"].size(), 30u);
  for (const auto& c : fx["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    for (const auto& [key, _] : c.items())
      ASSERT_TRUE(key == "name" || key == "decode" || key == "reply" || key == "error" || key == "failure")
          << "unknown fixture key " << key;
    const std::string got = decode_named(c["decode"], c["reply"]);
    if (c.contains("error")) {
      ASSERT_EQ(got.rfind("error: ", 0), 0u) << "decoded a reply it must refuse: " << got;
      EXPECT_NE(got.find(c["error"].get<std::string>()), std::string::npos) << got;
    } else if (c.contains("failure")) {
      ASSERT_EQ(got.rfind("failure: ", 0), 0u) << got;
      EXPECT_NE(got.find(c["failure"].get<std::string>()), std::string::npos) << got;
    } else {
      EXPECT_EQ(got, "") << "refused a reply the harness does send";
    }
    EXPECT_EQ(fuzz::check_page_reply(c["reply"]), "");
  }
}

TEST(PageReply, DecodedValuesAreTheReplysValues) {
  auto run = decode_run(json::parse(R"({"ok":true,"run_ms":3.5,"device_lost":"destroyed",
      "outputs":[{"name":"y","type":"float16","dims":[1,3,2]}],"validation":["v1"]})"),
                        Stage::run);
  ASSERT_TRUE(run.ok()) << run.error().describe();
  EXPECT_EQ(run->run_ms, 3.5);
  ASSERT_EQ(run->outputs.size(), 1u);
  EXPECT_EQ(run->outputs[0].name, "y");
  EXPECT_EQ(run->outputs[0].type, "float16");
  EXPECT_EQ(run->outputs[0].dims, (Shape{1, 3, 2}));
  EXPECT_EQ(run->validation, std::vector<std::string>{"v1"});
  EXPECT_EQ(run->device_lost, "destroyed");

  auto adapter = decode_adapter(json::parse(R"({"ok":true,"gpu":true,"adapter":{"vendor":"nvidia",
      "features":["shader-f16","timestamp-query"],"limits":{"maxBufferSize":1048576,"x":2}}})"),
                                Stage::append_provider);
  ASSERT_TRUE(adapter.ok()) << adapter.error().describe();
  ASSERT_TRUE(adapter->adapter.has_value());
  EXPECT_TRUE(adapter->adapter->has_feature("shader-f16"));
  EXPECT_FALSE(adapter->adapter->has_feature("subgroups"));
  EXPECT_EQ(adapter->adapter->max_buffer_size, 1048576.0);
  EXPECT_EQ(adapter->adapter->limits.size(), 2u);

  auto create = decode_create(json::parse(R"({"ok":true,"placement":[]})"), Stage::create_session);
  ASSERT_TRUE(create.ok());
  EXPECT_TRUE(create->placement.has_value()) << "[] (all folded away) differs from no placement";
  auto none = decode_create(json::parse(R"({"ok":true})"), Stage::create_session);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->placement.has_value());
}

// Every field (at every depth) of the fixtures' well-formed replies replaced by each JSON type:
// the decoders must keep their contract on all of them.
void mutate_each_field(const json& reply, const std::function<void(const json&)>& visit) {
  static const json kValues = json::array({nullptr, true, -1, 1.5, 1e300, "x", json::array(), json::object(),
                                           json::array({json::object({{"k", 1}})})});
  std::function<void(json&, json&)> walk = [&](json& root, json& node) {
    if (!node.is_object() && !node.is_array()) return;
    for (auto& [_, child] : node.items()) {
      const json saved = child;
      for (const auto& v : kValues) {
        child = v;
        visit(root);
      }
      child = saved;
      walk(root, child);
    }
  };
  json copy = reply;
  walk(copy, copy);
}

TEST(PageReply, EveryFieldOfEveryTypeKeepsTheContract) {
  const json fx = load_cases();
  ASSERT_TRUE(fx.is_object());
  int checked = 0;
  for (const auto& c : fx["cases"]) {
    if (c.contains("error")) continue;
    mutate_each_field(c["reply"], [&](const json& mutated) {
      ++checked;
      const std::string problem = fuzz::check_page_reply(mutated);
      ASSERT_EQ(problem, "") << mutated.dump();
    });
  }
  EXPECT_GT(checked, 500);
}

}  // namespace
}  // namespace parity::backend::browser
