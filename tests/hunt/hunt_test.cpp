// parity hunt, end to end on the real binary and real backends: the op spaces give models ONNX
// Runtime runs and the reference agrees with itself on (no false alarm), cases are pure functions
// of (seed, index) and resume from the journal, and a small seeded hunt on WebGPU rediscovers the
// three known miscomputes from scratch and files each as a one-node finding `parity verify` replays.
#include "hunt/hunt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/run_lock.h"
#include "hunt/op_space.h"
#include "lint/finding_record.h"
#include "model/op_model.h"
#include "support/requirements.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity::hunt {
namespace {

using nlohmann::json;

json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in, nullptr, false);
}

TEST(OpSpaces, EverySpaceDrawsValidCheckedModels) {
  std::mt19937_64 rng(7);
  for (const auto& space : op_spaces()) {
    SCOPED_TRACE(space.name);
    ASSERT_TRUE(find_space(space.name) == &space);
    int valid = 0;
    for (int i = 0; i < 200 && valid < 10; ++i) {
      const Point p = sample_point(space, rng);
      EXPECT_EQ(p.size(), space.params.size());
      auto op = space.build(p, 1);
      if (!op.ok()) {
        EXPECT_EQ(op.error().kind, ErrorKind::bad_input) << op.error().describe();
        continue;
      }
      ++valid;
      auto bytes = model::op_model_bytes(*op);  // ONNX's checker and shape inference accept it
      EXPECT_TRUE(bytes.ok()) << point_text(p) << ": " << bytes.error().describe();
    }
    EXPECT_EQ(valid, 10) << "fewer than 10 valid points in 200 draws";
  }
}

TEST(OpSpaces, APointOutsideAParametersRangeIsNoModel) {
  const OpSpace* conv = find_space("Conv1D");
  ASSERT_NE(conv, nullptr);
  std::mt19937_64 rng(1);
  Point p;
  for (int i = 0; i < 100; ++i) {
    p = sample_point(*conv, rng);
    if (conv->build(p, 0).ok()) break;
  }
  ASSERT_TRUE(conv->build(p, 0).ok());
  p["stride"] = 0;  // a neighbour step below the range must not reach the builder's arithmetic
  EXPECT_FALSE(conv->build(p, 0).ok());
  p.erase("stride");
  EXPECT_FALSE(conv->build(p, 0).ok());
}

TEST(OpSpaces, NeighboursAreOneStepAndTheNextBoundaryEachSide) {
  const Param c{"C", "channels", {8, 16, 128, 256}, 1, 257};
  EXPECT_EQ(neighbour_values(c, 129), (std::vector<int64_t>{128, 130, 256}));
  EXPECT_EQ(neighbour_values(c, 1), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(point_text({{"C", 129}, {"K", 3}}), "C=129 K=3");
  // Past the failing neighbours (128 and 256 both failed at 129): the next boundaries out each side.
  EXPECT_EQ(further_values(c, 129, {128, 130, 256}, 2), (std::vector<int64_t>{16, 8}));
  const Param block{"block", "block size", {16, 32, 64, 128}, 16, 128};
  EXPECT_EQ(further_values(block, 128, {64}, 2), (std::vector<int64_t>{32, 16}));
  const Param seed{"graph", "seed", {}, 0, 100, ParamKind::seed};
  EXPECT_TRUE(further_values(seed, 5, {}, 2).empty());
}

TEST(HuntPlan, ACaseIsAPureFunctionOfSeedAndIndex) {
  for (int index : {0, 1, 17, 999}) {
    auto a = plan_case({}, 42, index);
    auto b = plan_case({}, 42, index);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->space, b->space);
    EXPECT_EQ(a->point, b->point);
    EXPECT_EQ(a->seed, b->seed);
  }
  std::set<std::string> spaces;
  for (int i = 0; i < 600; ++i) spaces.insert(plan_case({}, 3, i)->space);
  EXPECT_EQ(spaces.size(), op_spaces().size()) << "600 cases should reach every space";
  EXPECT_FALSE(plan_case({"NoSuchOp"}, 0, 0).ok());
  auto line = case_to_json_line(*plan_case({"Slice"}, 5, 3));
  auto back = case_from_json_line(line);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->point, plan_case({"Slice"}, 5, 3)->point);
  EXPECT_FALSE(case_from_json_line("{\"schema\": \"other\"}").ok());

  // Every state reads back as itself; one this build does not know is refused, not taken for a match.
  HuntCase c = *plan_case({"Slice"}, 5, 3);
  for (CaseState s :
       {CaseState::match, CaseState::mismatch, CaseState::error, CaseState::invalid, CaseState::fallback})
    c.runs.push_back({"t", s, "m", {}});
  auto states = case_from_json_line(case_to_json_line(c));
  ASSERT_TRUE(states.ok()) << states.error().describe();
  ASSERT_EQ(states->runs.size(), c.runs.size());
  for (std::size_t k = 0; k < c.runs.size(); ++k) EXPECT_EQ(states->runs[k].state, c.runs[k].state) << k;
  std::string odd = case_to_json_line(c);
  odd.replace(odd.find("\"fallback\""), 10, "\"sideways\"");
  EXPECT_FALSE(case_from_json_line(odd).ok());
}

// The reference against itself under another label: every case must match. A space whose models
// disagree with themselves, or a judging rule that trips on noise, shows up here as a finding.
TEST(HuntCli, TheReferenceAgainstItselfFindsNothing) {
  testing::TempDir dir;
  const auto journal = dir.path() / "hunt.jsonl";
  const auto r =
      testing::run_parity({"hunt", "--backends", "same=cpu", "--cases", "60", "--seed", "11", "-j", "2",
                           "--journal", journal.string(), "--json", (dir.path() / "h.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = read_json(dir.path() / "h.json");
  ASSERT_EQ(j.value("schema", ""), kHuntSchema);
  EXPECT_TRUE(j["findings"].empty());
  int invalid = 0;
  for (const auto& c : j["cases"]) {
    if (!c["invalid"].is_null()) {
      ++invalid;
      continue;
    }
    for (const auto& run : c["runs"]) EXPECT_EQ(run["state"], "match") << c.dump();
  }
  EXPECT_EQ(j["cases"].size(), 60u);
  EXPECT_LT(invalid, 15) << "most drawn cases must be runnable";
  // Resuming: the 60 journalled cases are read back, only the 5 new ones run.
  const auto again =
      testing::run_parity({"hunt", "--backends", "same=cpu", "--cases", "65", "--seed", "11", "--journal",
                           journal.string(), "--json", (dir.path() / "h2.json").string()});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const json k = read_json(dir.path() / "h2.json");
  EXPECT_EQ(k["resumed"], 60);
  EXPECT_EQ(k["cases"].size(), 65u);
  // Another seed's journal is refused, not mixed in.
  const auto other = testing::run_parity(
      {"hunt", "--backends", "same=cpu", "--cases", "5", "--seed", "12", "--journal", journal.string()});
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("another hunt"), std::string::npos) << other.output;
}

// Ctrl-C in the middle of a hunt: the cases cut short are not journalled (before, they were, as
// "not runnable", and the resumed hunt skipped them), so the resumed hunt ends with the cases of an
// uninterrupted one, case for case.
TEST(HuntCli, AnInterruptedHuntResumesEveryUnfinishedCase) {
  testing::TempDir dir;
  const auto journal = dir.path() / "hunt.jsonl";
  const std::vector<std::string> hunt{"hunt",   "--backends", "same=cpu", "--cases", "60",
                                      "--seed", "11",         "-j",       "2",       "--no-reduce"};
  auto args = hunt;
  args.insert(args.end(), {"--json", (dir.path() / "whole.json").string()});
  ASSERT_EQ(testing::run_parity(args).exit_code, 0);
  const json whole = read_json(dir.path() / "whole.json");

  args = hunt;
  args.insert(args.end(), {"--journal", journal.string(), "--json", (dir.path() / "cut.json").string()});
  const auto cut = testing::run_parity_signalled(args, "cases run", SIGINT);
  ASSERT_EQ(cut.exit_code, 128 + SIGINT) << cut.output;
  const json partial = read_json(dir.path() / "cut.json");
  ASSERT_FALSE(partial.is_discarded()) << cut.output;
  EXPECT_EQ(partial.value("interrupted", false), true);
  EXPECT_LT(partial["cases"].size(), 60u) << "the hunt finished before the interrupt";
  EXPECT_EQ(partial["cases_finished"], partial["cases"].size());
  for (const auto& c : partial["cases"])
    EXPECT_EQ(c.dump().find("interrupted"), std::string::npos) << c.dump();

  args = hunt;
  args.insert(args.end(), {"--journal", journal.string(), "--json", (dir.path() / "resumed.json").string()});
  const auto resumed = testing::run_parity(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const json done = read_json(dir.path() / "resumed.json");
  EXPECT_EQ(done["resumed"], partial["cases"].size());
  ASSERT_EQ(done["cases"].size(), whole["cases"].size());
  for (std::size_t i = 0; i < whole["cases"].size(); ++i) {
    const json& got = done["cases"][i];
    const json& want = whole["cases"][i];
    EXPECT_EQ(got["invalid"], want["invalid"]) << got.dump();
    ASSERT_EQ(got["runs"].size(), want["runs"].size()) << got.dump();
    for (std::size_t t = 0; t < want["runs"].size(); ++t)
      EXPECT_EQ(got["runs"][t]["state"], want["runs"][t]["state"]);
  }
}

// Two hunts on one journal would run and append the same cases twice: the second is refused,
// naming the holder (this test process holds the lock, so no timing is involved).
TEST(HuntCli, ASecondHuntOnOneJournalOrFolderIsRefused) {
  testing::TempDir dir;
  const auto journal = dir.path() / "hunt.jsonl";
  const std::string pid = std::to_string(::getpid());
  {
    auto held = RunLock::acquire(journal.string() + ".lock", "test");
    ASSERT_TRUE(held.ok()) << held.error().describe();
    const auto r = testing::run_parity(
        {"hunt", "--backends", "same=cpu", "--cases", "2", "--seed", "11", "--journal", journal.string()});
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("process " + pid), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(journal) && std::filesystem::file_size(journal) > 0)
      << "a refused hunt ran cases";
  {
    const auto out =
        dir.path() / "findings";  // apart from the journal: --out takes only Parity's own folders
    std::filesystem::create_directory(out);
    auto held = RunLock::acquire(out / kRunLockName, "test");
    ASSERT_TRUE(held.ok()) << held.error().describe();
    const auto r = testing::run_parity(
        {"hunt", "--backends", "same=cpu", "--cases", "2", "--seed", "11", "--out", out.string()});
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("process " + pid), std::string::npos) << r.output;
  }
  const auto r = testing::run_parity(
      {"hunt", "--backends", "same=cpu", "--cases", "2", "--seed", "11", "--journal", journal.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// issue 20's done-when: a small seeded hunt rediscovers blocked 1-D DequantizeLinear, Slice with a
// negative step and the Conv 1-D channel case from scratch, each a one-node finding.
TEST(HuntCli, ASeededHuntRediscoversTheKnownWebgpuMiscomputes) {
  PARITY_REQUIRE("webgpu-adapter");
  testing::TempDir dir;
  const auto out = dir.path() / "findings";
  const auto r = testing::run_parity(
      {"hunt", "--backends", "webgpu", "--ops", "DequantizeLinear,Slice,Conv1D", "--cases", "150", "--seed",
       "1", "-j", "2", "--out", out.string(), "--json", (dir.path() / "h.json").string()});
  ASSERT_EQ(r.exit_code, 1) << r.output;
  const json j = read_json(dir.path() / "h.json");
  bool dq = false, slice = false, conv = false;
  for (const auto& f : j["findings"]) {
    SCOPED_TRACE(f.dump());
    const auto& p = f["point"];
    EXPECT_EQ(f["state"], "mismatch");
    if (f["space"] == "DequantizeLinear" && p["R"] == 1 && p["mode"] == 2 && p["B"].get<int>() > 1) dq = true;
    if (f["space"] == "Slice" && p["step"].get<int64_t>() < 0) slice = true;
    if (f["space"] == "Conv1D" && p["C"].get<int64_t>() % 2 == 1) conv = true;
    // Every finding is a folder `parity verify` replays (exit 1: still wrong) and lint can read.
    ASSERT_TRUE(f["folder"].is_string());
    const std::filesystem::path folder = f["folder"].get<std::string>();
    auto record = lint::read_finding(folder);
    ASSERT_TRUE(record.ok()) << record.error().describe();
    EXPECT_EQ(record->backends, std::vector<std::string>{"webgpu"});
    const json repro = read_json(folder / "repro.json");
    EXPECT_EQ(repro["nodes"].size(), 1u) << "a hunt finding is one node";
    const auto v = testing::run_parity({"verify", folder.string()});
    EXPECT_EQ(v.exit_code, 1) << v.output;
  }
  EXPECT_TRUE(dq) << "blocked 1-D DequantizeLinear not rediscovered\n" << r.output;
  EXPECT_TRUE(slice) << "Slice with a negative step not rediscovered\n" << r.output;
  EXPECT_TRUE(conv) << "the Conv 1-D channel case not rediscovered\n" << r.output;
  EXPECT_LE(j["findings"].size(), 6u) << "one bug, one finding: clustering fell apart\n" << r.output;
}

// A random graph that goes wrong is cut down to the nodes that still fail: this 8-node graph (hunt
// seed 2, case 229) ends in Conv -> Relu -> Sigmoid, the two-activations bug; reduction keeps those
// three nodes and drops the five before them, and the folder replays.
TEST(HuntCli, AFailingRandomGraphIsCutToTheNodesThatFail) {
  PARITY_REQUIRE("webgpu-adapter");
  testing::TempDir dir;
  const auto out = dir.path() / "findings";
  const auto r = testing::run_parity({"hunt", "--backends", "webgpu", "--point",
                                      "Graph:graph=1263831407,nodes=8,keep=8,C=8,H=8,W=22", "--out",
                                      out.string(), "--json", (dir.path() / "h.json").string()});
  ASSERT_EQ(r.exit_code, 1) << r.output;
  const json j = read_json(dir.path() / "h.json");
  ASSERT_EQ(j["findings"].size(), 1u) << r.output;
  const json& f = j["findings"][0];
  EXPECT_EQ(f["point"]["nodes"], 8) << "the wrong node is the eighth: 7 nodes pass";
  EXPECT_LE(f["point"]["keep"].get<int>(), 3) << r.output;
  const std::filesystem::path folder = f["folder"].get<std::string>();
  const json repro = read_json(folder / "repro.json");
  EXPECT_LE(repro["nodes"].size(), 3u);
  EXPECT_EQ(repro["culprit"]["op_type"], "Sigmoid");
  const auto v = testing::run_parity({"verify", folder.string()});
  EXPECT_EQ(v.exit_code, 1) << v.output;
}

}  // namespace
}  // namespace parity::hunt
