// `parity sweep` end to end on the CPU EP: an interrupted sweep resumes without losing or
// repeating a cell, and cells run one by one from a plan merge into the matrix of one run.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/child_process.h"
#include "support/run_parity.h"

namespace parity {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kModels = PARITY_TEST_MODELS;

// cpu x {fp32, int8} x {all, disabled} x 3 sizes: 12 cells, each a few hundred ms.
std::vector<std::string> twelve_cell_sweep(const std::string& out) {
  return {"sweep",        kModels + "/sweep_conv.onnx",
          "--variants",   "int8=" + kModels + "/sweep_conv_int8.onnx",
          "--opt-levels", "all,disabled",
          "--size",       "x=8,8:16,16:24,24",
          "--out",        out};
}

std::size_t lines_in(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

json read_json(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in, nullptr, false);
}

// The matrix without what differs between runs (timings).
json matrix_of(const json& report) {
  json cells = json::array();
  for (const auto& c : report["cells"])
    cells.push_back({{"cell", c["cell"]},
                     {"status", c["status"]},
                     {"backend", c["backend"]},
                     {"variant", c["variant"]},
                     {"opt_level", c["opt_level"]},
                     {"size", c["size"]}});
  return {{"cells", cells}, {"ladder", report["ladder"]}};
}

TEST(SweepCli, KilledMidwayThenResumedLosesAndRepeatsNoCell) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/sweep";
  SpawnOptions so;
  so.exe = PARITY_BIN;
  so.args = twelve_cell_sweep(out);
  auto child = ChildProcess::spawn(so);
  ASSERT_TRUE(child.ok()) << child.error().describe();
  child->close_request();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  char buf[4096];
  while (lines_in(fs::path(out) / "results.jsonl") < 3 && std::chrono::steady_clock::now() < deadline) {
    pollfd p{child->log_fd(), POLLIN, 0};
    ::poll(&p, 1, 50);
    while (::read(child->log_fd(), buf, sizeof buf) > 0) {
    }
  }
  child->kill_group(SIGKILL);  // no chance to clean up: the worst interruption there is
  child->wait();
  const std::size_t before = lines_in(fs::path(out) / "results.jsonl");
  ASSERT_GE(before, 3u) << "the sweep did not finish three cells in time";
  ASSERT_LT(before, 12u) << "the sweep finished before it could be interrupted";

  const auto refused = testing::run_parity(twelve_cell_sweep(out));
  EXPECT_EQ(refused.exit_code, 2) << "a folder with results needs --resume: " << refused.output;

  auto args = twelve_cell_sweep(out);
  args.insert(args.end(), {"--resume", "--json", tmp.str() + "/sweep.json"});
  const auto resumed = testing::run_parity(args);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(std::to_string(before) + " of 12 cells already finished"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(lines_in(fs::path(out) / "results.jsonl"), 12u) << "a finished cell ran again, or one is missing";
  const json report = read_json(tmp.str() + "/sweep.json");
  ASSERT_FALSE(report.is_discarded());
  EXPECT_EQ(report["schema"], "parity.sweep/1");
  EXPECT_EQ(report["complete"], true);
  ASSERT_EQ(report["cells"].size(), 12u);
  for (std::size_t k = 0; k < 12; ++k) EXPECT_EQ(report["cells"][k]["cell"], k);
}

TEST(SweepCli, CellsRunApartMergeIntoTheMatrixOfOneRun) {
  testing::TempDir tmp;
  auto whole = twelve_cell_sweep(tmp.str() + "/whole");
  whole.insert(whole.end(), {"--json", tmp.str() + "/whole.json", "--quiet"});
  ASSERT_EQ(testing::run_parity(whole).exit_code, 0);

  auto plan_args = twelve_cell_sweep(tmp.str() + "/unused");
  plan_args.insert(plan_args.end(), {"--write-plan", tmp.str() + "/plan.json"});
  const auto planned = testing::run_parity(plan_args);
  ASSERT_EQ(planned.exit_code, 0) << planned.output;
  EXPECT_NE(planned.output.find("12 cells"), std::string::npos) << planned.output;
  // Two "machines", each with a folder of its own, run alternate cells.
  for (int k = 0; k < 12; ++k) {
    const std::string dir = tmp.str() + (k % 2 ? "/node-b" : "/node-a");
    const auto one = testing::run_parity(
        {"sweep", "--plan", tmp.str() + "/plan.json", "--cell", std::to_string(k), "--out", dir, "--quiet"});
    ASSERT_NE(one.exit_code, 2) << one.output;
    ASSERT_TRUE(fs::exists(dir + "/results-cell-" + std::to_string(k) + ".jsonl"));
  }
  const auto merged = testing::run_parity(
      {"sweep", "merge", tmp.str() + "/node-a", tmp.str() + "/node-b", "--json", tmp.str() + "/merged.json"});
  EXPECT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_EQ(matrix_of(read_json(tmp.str() + "/merged.json")),
            matrix_of(read_json(tmp.str() + "/whole.json")));

  const auto out_of_range =
      testing::run_parity({"sweep", "--plan", tmp.str() + "/plan.json", "--cell", "12"});
  EXPECT_EQ(out_of_range.exit_code, 2);
  EXPECT_NE(out_of_range.output.find("has 12 cells (0 to 11)"), std::string::npos) << out_of_range.output;
}

TEST(SweepCli, AManifestFromASweepPassesItsOwnCheckAndAnEditDoesNot) {
  testing::TempDir tmp;
  auto args = twelve_cell_sweep(tmp.str() + "/sweep");
  args.insert(args.end(), {"--json", tmp.str() + "/sweep.json", "--quiet"});
  ASSERT_EQ(testing::run_parity(args).exit_code, 0);

  const std::string caps = tmp.str() + "/caps.toml";
  const auto wrote = testing::run_parity({"manifest", tmp.str() + "/sweep.json", "--out", caps});
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  EXPECT_NE(wrote.output.find("cpu: int8 ("), std::string::npos)
      << "the smaller file is correct on cpu: " << wrote.output;
  std::ifstream in(caps);
  const std::string toml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* needle :
       {"schema = 'parity.manifest/1'", "[backends.cpu]", "enabled = true", "graph_optimization = 'all'",
        "max_size = 'x=24x24'", "sha256 = '", "[backends.cpu.evidence]", "status = 'ok'"})
    EXPECT_NE(toml.find(needle), std::string::npos) << needle << "\n" << toml;
  const auto checked = testing::run_parity({"manifest", "check", caps});
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_NE(checked.output.find("valid parity.manifest/1, 1 backends"), std::string::npos) << checked.output;

  // The --out folder gives the same manifest, here in its JSON form.
  const auto from_dir =
      testing::run_parity({"manifest", tmp.str() + "/sweep", "--out", tmp.str() + "/caps.json"});
  ASSERT_EQ(from_dir.exit_code, 0) << from_dir.output;
  EXPECT_EQ(read_json(tmp.str() + "/caps.json")["backends"]["cpu"]["variant"], "int8");
  EXPECT_EQ(testing::run_parity({"manifest", "check", tmp.str() + "/caps.json"}).exit_code, 0);

  std::ofstream(caps, std::ios::app) << "\n[backends.webgpu]\nep = 'webgpu'\nenabled = true\ntile = 320\n";
  const auto edited = testing::run_parity({"manifest", "check", caps});
  EXPECT_EQ(edited.exit_code, 1) << edited.output;
  EXPECT_NE(edited.output.find("/backends/webgpu/tile: unknown key"), std::string::npos) << edited.output;
  EXPECT_NE(edited.output.find("/backends/webgpu/variant: missing"), std::string::npos) << edited.output;
}

}  // namespace
}  // namespace parity
