#include "core/text.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace parity
