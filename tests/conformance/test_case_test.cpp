#include "conformance/test_case.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/requirements.h"
#include "support/run_parity.h"

namespace parity::conformance {
namespace {
namespace fs = std::filesystem;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
}

TEST(DiscoverTests, FindsModelFoldersSortedAndFiltered) {
  testing::TempDir dir;
  const fs::path root = dir.path();
  touch(root / "test_b" / "model.onnx");
  touch(root / "test_a" / "model.onnx");
  touch(root / "test_a" / "test_data_set_0" / "input_0.pb");
  touch(root / "not_a_test" / "readme.txt");
  touch(root / "nested" / "test_c" / "model.onnx");
  auto all = discover_tests(root, {});
  ASSERT_TRUE(all.ok()) << all.error().describe();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].name, "nested/test_c");
  EXPECT_EQ((*all)[1].name, "test_a");
  EXPECT_EQ((*all)[2].name, "test_b");
  auto some = discover_tests(root, {"test_a*", "*/test_c"});
  ASSERT_TRUE(some.ok());
  ASSERT_EQ(some->size(), 2u);
  EXPECT_EQ((*some)[0].name, "nested/test_c");
  EXPECT_EQ((*some)[1].name, "test_a");
  auto none = discover_tests(root, {"test_zzz*"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(DiscoverTests, MissingOrEmptySuiteIsAnErrorWithAHint) {
  auto missing = discover_tests("/nonexistent/suite", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::io);
  EXPECT_NE(missing.error().hint.find("libonnx-testdata"), std::string::npos);
  testing::TempDir dir;
  auto empty = discover_tests(dir.path(), {});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().kind, ErrorKind::bad_input);
}

TEST(MatchesAny, GlobsMatchWholeNames) {
  EXPECT_TRUE(matches_any("test_resize_upsample", {}));
  EXPECT_TRUE(matches_any("test_resize_upsample", {"test_resize*"}));
  EXPECT_FALSE(matches_any("test_resize_upsample", {"resize*"}));
  EXPECT_TRUE(matches_any("test_abs", {"test_x", "test_ab?"}));
}

TEST(LoadTestCase, ReadsModelAndDataSetNamedAfterTheGraph) {
  PARITY_REQUIRE("onnx-testdata");
  auto found = discover_tests(kDefaultSuiteDir, {"test_abs"});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  TestCase tc = load_test_case((*found)[0]);
  ASSERT_TRUE(tc.skip_reason.empty()) << tc.skip_reason;
  EXPECT_EQ(tc.op, "Abs");
  EXPECT_EQ(tc.ops, std::vector<std::string>{"Abs"});
  EXPECT_GT(tc.opset, 0);
  ASSERT_EQ(tc.data_sets.size(), 1u);
  ASSERT_EQ(tc.data_sets[0].inputs.size(), 1u);
  EXPECT_EQ(tc.data_sets[0].inputs[0].name, tc.model.inputs[0].name);
  ASSERT_EQ(tc.data_sets[0].expected.size(), 1u);
  EXPECT_EQ(tc.data_sets[0].expected[0].tensor.dtype(), DType::float32);
}

TEST(LoadTestCase, Bfloat16StoredAsUint16IsReadAsDeclared) {
  PARITY_REQUIRE("onnx-testdata");
  TestCase tc = load_test_case(
      {"test_cast_FLOAT_to_BFLOAT16", fs::path(kDefaultSuiteDir) / "test_cast_FLOAT_to_BFLOAT16"});
  ASSERT_TRUE(tc.skip_reason.empty()) << tc.skip_reason;
  EXPECT_EQ(tc.data_sets[0].expected[0].tensor.dtype(), DType::bfloat16);
}

TEST(LoadTestCase, SequencesAreSkippedWithAReason) {
  PARITY_REQUIRE("onnx-testdata");
  for (const char* name : {"test_sequence_insert_at_back", "test_optional_get_element_sequence"}) {
    TestCase tc = load_test_case({name, fs::path(kDefaultSuiteDir) / name});
    EXPECT_FALSE(tc.skip_reason.empty()) << name;
    EXPECT_TRUE(tc.skip_reason.find("sequence") != std::string::npos ||
                tc.skip_reason.find("optional") != std::string::npos)
        << name << ": " << tc.skip_reason;
  }
}

TEST(LoadTestCase, ExpandedTestIsNamedAfterItsOp) {
  PARITY_REQUIRE("onnx-testdata");
  TestCase tc = load_test_case(
      {"test_softmax_axis_0_expanded", fs::path(kDefaultSuiteDir) / "test_softmax_axis_0_expanded"});
  EXPECT_EQ(tc.op, "Softmax (expanded)");
  EXPECT_GT(tc.ops.size(), 1u);
}

TEST(LoadTestCase, UnreadableModelIsSkippedNotDropped) {
  testing::TempDir dir;
  touch(fs::path(dir.path()) / "test_bad" / "model.onnx");
  TestCase tc = load_test_case({"test_bad", fs::path(dir.path()) / "test_bad"});
  EXPECT_FALSE(tc.skip_reason.empty());
  EXPECT_EQ(tc.skip_reason.rfind("model:", 0), 0u) << tc.skip_reason;
}

}  // namespace
}  // namespace parity::conformance
