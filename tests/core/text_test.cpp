#include "core/text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace parity {
namespace {

// RFC 4648's test vectors, and every byte value through a round trip.
TEST(Base64, EncodesTheRfcVectorsAndDecodesThemBack) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(base64_encode(plain), coded);
    EXPECT_EQ(base64_decode(coded), std::optional<std::string>(plain));
  }
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  EXPECT_EQ(base64_decode(base64_encode(all)), std::optional<std::string>(all));
  EXPECT_EQ(base64_decode("Zm9v!"), std::nullopt);
}

// JSON embedded in a <script> block: nothing in a string may end the block, and it parses back
// to the same value.
TEST(Text, JsonForScriptCannotCloseTheBlock) {
  const nlohmann::json j = {{"name", "</script><script>alert(1)</script><!-- & \xe2\x80\xa8"}};
  const std::string safe = json_for_script(j.dump());
  EXPECT_EQ(safe.find_first_of("<>&"), std::string::npos) << safe;
  EXPECT_EQ(safe.find("\xe2\x80\xa8"), std::string::npos) << safe;
  EXPECT_EQ(nlohmann::json::parse(safe), j);
}

}  // namespace
}  // namespace parity
