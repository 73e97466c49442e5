// The one checked reader of typed numbers: the whole text, decimal, in range, finite.
#include "core/number_text.h"

#include <gtest/gtest.h>

namespace parity {
namespace {

TEST(NumberText, IntegersAreTheWholeTextInRange) {
  EXPECT_EQ(*parse_integer("42", "n"), 42);
  EXPECT_EQ(*parse_integer("-7", "n"), -7);
  for (const char* bad : {"4abc", "", " 4", "4 ", "+4", "0x10", "1e3", "99999999999999999999"})
    EXPECT_FALSE(parse_integer(bad, "threads=").ok()) << bad;
  EXPECT_FALSE(parse_integer("1025", "threads=", 0, 1024).ok());
  const auto e = parse_integer("4abc", "threads=", 0, 1024);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::bad_input);
  EXPECT_NE(e.error().message.find("threads=: '4abc'"), std::string::npos) << e.error().message;
}

TEST(NumberText, UnsignedValuesDoNotWrap) {
  EXPECT_EQ(*parse_unsigned("18446744073709551615", "seed"), UINT64_MAX);
  EXPECT_EQ(*parse_unsigned("010", "seed"), 10u) << "decimal, not octal";
  for (const char* bad : {"-1", "18446744073709551616", "7x", ""})
    EXPECT_FALSE(parse_unsigned(bad, "seed").ok()) << bad;
  EXPECT_FALSE(parse_unsigned("17", "cell", 16).ok());
}

TEST(NumberText, RealsAreFinite) {
  EXPECT_EQ(*parse_finite("1e-3", "atol"), 1e-3);
  EXPECT_EQ(*parse_finite("-2.5", "range"), -2.5);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e400", "0.1x", ""})
    EXPECT_FALSE(parse_finite(bad, "atol").ok()) << bad;
}

}  // namespace
}  // namespace parity
