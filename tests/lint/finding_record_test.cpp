// The findings base's record: versions compare numerically, the run at (or nearest below) a
// version decides, and records survive a write and a read.
#include "lint/finding_record.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace parity::lint {
namespace {

FindingRecord record_with(std::vector<FindingRun> runs) {
  FindingRecord r;
  r.id = "x";
  r.rule = "maxpool-dilations";
  r.runs = std::move(runs);
  return r;
}

TEST(FindingVersions, CompareNumerically) {
  EXPECT_LT(compare_versions("1.9.0", "1.22.0"), 0);
  EXPECT_EQ(compare_versions("1.22", "1.22.0"), 0);
  EXPECT_GT(compare_versions("1.30.0", "1.30.0-dev"), 0);
  EXPECT_LT(compare_versions("1.22.0", "1.30.0"), 0);
}

TEST(FindingVersions, TheNearestCheckedReleaseDecides) {
  const auto r = record_with({{"web-webgpu", "1.22.0", true, "max_abs 5", "", ""},
                              {"web-webgpu", "1.30.0", false, "max_abs 0", "", ""},
                              {"web-jsep", "1.30.0", true, "max_abs 5", "", ""}});
  auto v = verdict_for(r, "web-webgpu", "1.30.0");
  EXPECT_EQ(v.state, VersionVerdict::State::passes);
  EXPECT_TRUE(v.exact);
  v = verdict_for(r, "web-webgpu", "1.24.3");  // between: the release below decides
  EXPECT_EQ(v.state, VersionVerdict::State::fails);
  EXPECT_FALSE(v.exact);
  EXPECT_NE(v.basis.find("1.24.3 not checked"), std::string::npos) << v.basis;
  EXPECT_EQ(verdict_for(r, "web-webgpu", "1.31.0").state, VersionVerdict::State::passes);
  EXPECT_EQ(verdict_for(r, "web-webgpu", "1.20.0").state, VersionVerdict::State::fails);  // only above
  EXPECT_EQ(verdict_for(r, "web-webgpu", "").state, VersionVerdict::State::passes);       // newest
  EXPECT_EQ(verdict_for(r, "webgpu", "1.30.0").state, VersionVerdict::State::unchecked);
}

// Runs of one version on two adapters: the bug counts where it reproduces on any of them.
TEST(FindingVersions, ARunFailingOnAnyAdapterDecides) {
  const auto r = record_with({{"webgpu", "1.30.0", false, "max_abs 0", "SwiftShader", ""},
                              {"webgpu", "1.30.0", true, "max_abs 3", "NVIDIA H100", ""}});
  const auto v = verdict_for(r, "webgpu", "1.30.0");
  EXPECT_EQ(v.state, VersionVerdict::State::fails);
  EXPECT_NE(v.basis.find("NVIDIA H100"), std::string::npos) << v.basis;
}

TEST(FindingRecords, WriteThenReadKeepsEveryRun) {
  testing::TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  auto r = record_with({{"web-jsep", "1.30.0", true, "max_abs 5", "swiftshader", "2026-12-06"}});
  r.folder = tmp.path() / "maxpool";
  r.title = "MaxPool ignores dilations";
  r.backends = {"web-jsep"};
  std::filesystem::create_directories(r.folder);
  ASSERT_TRUE(write_finding(r).ok());
  auto all = read_findings(tmp.path());
  ASSERT_TRUE(all.ok()) << all.error().describe();
  ASSERT_EQ(all->size(), 1u);
  const FindingRecord& back = all->front();
  EXPECT_EQ(back.id, "maxpool");
  EXPECT_EQ(back.rule, "maxpool-dilations");
  EXPECT_EQ(back.backends, std::vector<std::string>{"web-jsep"});
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_TRUE(back.runs[0].fails);
  EXPECT_EQ(back.runs[0].adapter, "swiftshader");
}

TEST(FindingRecords, ADamagedRecordIsNamed) {
  testing::TempDir tmp;
  std::filesystem::create_directories(tmp.path() / "bad");
  std::ofstream(tmp.path() / "bad" / "finding.json")
      << R"({"schema": "parity.finding/1", "runs": [{"backend": 3}]})";
  auto all = read_findings(tmp.path());
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.error().kind, ErrorKind::bad_input);
  EXPECT_NE(all.error().message.find("bad/finding.json"), std::string::npos) << all.error().message;
  EXPECT_FALSE(read_findings(tmp.path() / "missing").ok());
}

}  // namespace
}  // namespace parity::lint
