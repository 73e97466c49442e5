// The plan and results files that make sweep cells independent: they round-trip, cell numbers
// map to axes both ways, and a line torn by a kill is dropped without losing the lines before it.
#include "sweep/sweep_files.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace parity::sweep {
namespace {

SweepPlan three_axis_plan() {
  SweepPlan p;
  p.model = "m.onnx";
  p.reference.label = p.reference.ep = "cpu";
  for (const char* b : {"cpu", "webgpu"}) {
    backend::BackendSpec s;
    s.label = s.ep = b;
    p.backends.push_back(s);
  }
  p.variants = {{"fp32", "m.onnx", "fp32"}, {"int8", "m_int8.onnx", "int8"}};
  p.opt_levels = {"all", "disabled"};
  p.sizes = {{"x", 16, 16}, {"x", 32, 48}, {"x", 64, 64}};
  p.inputs.dims["batch"] = 1;
  p.inputs.seed = 7;
  return p;
}

TEST(SweepPlan, CellNumbersMapToAxesBothWays) {
  const SweepPlan p = three_axis_plan();
  ASSERT_EQ(p.cell_count(), 2u * 2 * 2 * 3);
  for (std::size_t k = 0; k < p.cell_count(); ++k) {
    const Cell c = cell_at(p, k);
    EXPECT_EQ(cell_index(p, c.backend, c.variant, c.opt_level, c.size), k);
  }
  const Cell last = cell_at(p, p.cell_count() - 1);
  EXPECT_EQ(last.backend, 1u);
  EXPECT_EQ(last.size, 2u);
  EXPECT_FALSE(check_cell_index(p, p.cell_count()).ok());
}

TEST(SweepPlan, RoundTripsThroughJson) {
  const SweepPlan p = three_axis_plan();
  const auto back = plan_from_json(plan_to_json(p), "test");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(plan_to_json(*back), plan_to_json(p));
  EXPECT_EQ(back->sizes[1].label(), "x=32x48");
  EXPECT_FALSE(plan_from_json({{"schema", "parity.sweep-plan/9"}}, "test").ok());
  auto broken = plan_to_json(p);
  broken.erase("opt_levels");
  const auto refused = plan_from_json(broken, "plan.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("plan.json"), std::string::npos);
}

// Cell `index` of three_axis_plan(), as a sweep writes it.
CellResult result(std::size_t index, probe::BackendStatus status) {
  const SweepPlan p = three_axis_plan();
  const Cell c = cell_at(p, index);
  CellResult r;
  r.index = index;
  r.backend = p.backends[c.backend].label;
  r.variant = p.variants[c.variant].name;
  r.opt_level = p.opt_levels[c.opt_level];
  r.size = p.sizes[c.size].label();
  r.status = status;
  r.max_abs = 0.25;
  r.cosine = std::numeric_limits<double>::quiet_NaN();
  return r;
}

TEST(SweepResults, AppendAndReadBackEveryCell) {
  testing::TempDir dir;
  ASSERT_TRUE(append_result(dir.path() / "results.jsonl", result(0, probe::BackendStatus::ok)).ok());
  ASSERT_TRUE(
      append_result(dir.path() / "results-cell-3.jsonl", result(3, probe::BackendStatus::mismatch)).ok());
  const auto back = read_results(dir.path(), three_axis_plan());
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(back->at(3).status, probe::BackendStatus::mismatch);
  EXPECT_EQ(back->at(3).max_abs, 0.25);
  EXPECT_TRUE(back->at(3).cosine && std::isnan(*back->at(3).cosine));
}

TEST(SweepResults, ATornLastLineIsDroppedAndTheFileStaysAppendable) {
  testing::TempDir dir;
  const auto path = dir.path() / "results.jsonl";
  ASSERT_TRUE(append_result(path, result(0, probe::BackendStatus::ok)).ok());
  ASSERT_TRUE(append_result(path, result(1, probe::BackendStatus::ok)).ok());
  std::ofstream(path, std::ios::app) << R"({"cell": 2, "backend": "web)";  // killed mid-write
  auto back = read_results(dir.path(), three_axis_plan());
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->size(), 2u);
  ASSERT_TRUE(append_result(path, result(2, probe::BackendStatus::ok)).ok());
  back = read_results(dir.path(), three_axis_plan());
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->size(), 3u);
}

TEST(SweepResults, ABadLineInTheMiddleIsAnErrorNamingIt) {
  testing::TempDir dir;
  const auto path = dir.path() / "results.jsonl";
  std::ofstream(path) << "not json\n";
  ASSERT_TRUE(append_result(path, result(1, probe::BackendStatus::ok)).ok());
  const auto back = read_results(dir.path(), three_axis_plan());
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("results.jsonl:1"), std::string::npos) << back.error().message;
}

// "17 of 16 cells": a line whose cell is outside the plan, or whose axes are not that cell's, is
// an error naming file and line, not a result that inflates or corrupts the matrix.
TEST(SweepResults, ALineOutsideThePlanIsAnErrorNamingIt) {
  const SweepPlan plan = three_axis_plan();
  {
    testing::TempDir dir;
    ASSERT_TRUE(append_result(dir.path() / "results.jsonl", result(0, probe::BackendStatus::ok)).ok());
    CellResult beyond = result(1, probe::BackendStatus::ok);
    beyond.index = plan.cell_count();
    ASSERT_TRUE(append_result(dir.path() / "results.jsonl", beyond).ok());
    const auto back = read_results(dir.path(), plan);
    ASSERT_FALSE(back.ok());
    EXPECT_NE(back.error().message.find("results.jsonl:2"), std::string::npos) << back.error().message;
    EXPECT_NE(back.error().message.find("not in the plan"), std::string::npos) << back.error().message;
  }
  {
    testing::TempDir dir;
    CellResult moved = result(3, probe::BackendStatus::ok);
    moved.backend = "webgpu";  // cell 3 is a cpu cell
    ASSERT_TRUE(append_result(dir.path() / "results-cell-3.jsonl", moved).ok());
    const auto back = read_results(dir.path(), plan);
    ASSERT_FALSE(back.ok());
    EXPECT_NE(back.error().message.find("backend 'webgpu'"), std::string::npos) << back.error().message;
  }
}

}  // namespace
}  // namespace parity::sweep
