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
#include "core/run_lock.h"
#include "support/json_file.h"
#include "support/requirements.h"
#include "support/run_parity.h"

namespace parity {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kModels = PARITY_TEST_MODELS;
const std::string kOrt129 = std::string(PARITY_THIRD_PARTY) + "/ort-1.29.0/lib/libonnxruntime.so.1";

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

using testing::read_json;

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
  // SIGKILL leaves the parent no chance to remove its workers' scratch folders: keep them in tmp.
  so.env_set = {{"TMPDIR", tmp.str()}};
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
  EXPECT_FALSE(fs::exists("sweep-sweep_conv")) << "a refused --cell wrote its default --out folder";
}

// Four sweeps at once on one folder gave 48 duplicate results: a second writer is refused, naming
// the process that holds the folder, while cell jobs on one folder still run side by side. The
// holder here is this test process (the lock is the kernel's, so it needs no timing).
TEST(SweepCli, ASecondWriterOfAFolderIsRefusedNamingTheHolder) {
  testing::TempDir tmp;
  auto plan_args = twelve_cell_sweep(tmp.str() + "/unused");
  plan_args.insert(plan_args.end(), {"--write-plan", tmp.str() + "/plan.json"});
  ASSERT_EQ(testing::run_parity(plan_args).exit_code, 0);
  const std::string dir = tmp.str() + "/out";
  const std::string pid = std::to_string(::getpid());
  auto cell = [&](int k) {
    return testing::run_parity(
        {"sweep", "--plan", tmp.str() + "/plan.json", "--cell", std::to_string(k), "--out", dir, "--quiet"});
  };
  // A lone cell exits 1 (the other cells are missing), 3 when refused.
  ASSERT_EQ(cell(0).exit_code, 1);  // creates the folder and its plan.json
  {
    auto held = RunLock::acquire(fs::path(dir) / kRunLockName, "test", 3);  // "another" --cell 3 job
    ASSERT_TRUE(held.ok()) << held.error().describe();
    const auto same = cell(3);
    EXPECT_EQ(same.exit_code, 3) << same.output;
    EXPECT_NE(same.output.find("process " + pid), std::string::npos) << same.output;
    EXPECT_EQ(cell(4).exit_code, 1) << "another cell runs beside it";
    EXPECT_TRUE(fs::exists(dir + "/results-cell-4.jsonl"));
    auto whole = twelve_cell_sweep(dir);
    whole.push_back("--resume");
    const auto refused = testing::run_parity(whole);
    EXPECT_EQ(refused.exit_code, 3) << refused.output;
    EXPECT_NE(refused.output.find("process " + pid), std::string::npos) << refused.output;
  }
  EXPECT_FALSE(fs::exists(dir + "/results-cell-3.jsonl")) << "a refused run wrote a result";
  EXPECT_EQ(cell(3).exit_code, 1) << "the lock goes with its holder";
  EXPECT_EQ(lines_in(dir + "/results-cell-3.jsonl"), 1u);
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
  const json cpu = read_json(tmp.str() + "/caps.json")["backends"]["cpu"];
  EXPECT_EQ(cpu["variant"], "int8");
  // The declared file's largest initializer, what the guard holds an adapter's maxBufferSize to.
  ASSERT_TRUE(cpu.contains("largest_weight_bytes")) << cpu.dump(1);
  EXPECT_GT(cpu["largest_weight_bytes"].get<uint64_t>(), 0u);
  EXPECT_LT(cpu["largest_weight_bytes"].get<uint64_t>(), fs::file_size(cpu["file"].get<std::string>()));
  EXPECT_EQ(testing::run_parity({"manifest", "check", tmp.str() + "/caps.json"}).exit_code, 0);

  std::ofstream(caps, std::ios::app) << "\n[backends.webgpu]\nep = 'webgpu'\nenabled = true\ntile = 320\n";
  const auto edited = testing::run_parity({"manifest", "check", caps});
  EXPECT_EQ(edited.exit_code, 1) << edited.output;
  EXPECT_NE(edited.output.find("/backends/webgpu/tile: unknown key"), std::string::npos) << edited.output;
  EXPECT_NE(edited.output.find("/backends/webgpu/variant: missing"), std::string::npos) << edited.output;
}

// The declaration of `backend` in a parity.manifest-verify/1 report.
json declaration_in(const json& report, const std::string& backend) {
  for (const auto& d : report["declarations"])
    if (d["backend"] == backend) return d;
  ADD_FAILURE() << "no declaration " << backend << " in " << report.dump(1);
  return json::object();
}

// The upgrade gate on native ORT: a manifest from a cpu + webgpu sweep under the bundled 1.30.0
// holds when re-run as recorded, and under the CPU-only 1.29.0 library the webgpu declaration no
// longer holds (its EP is gone) while cpu's int8 file still does. Files are pinned: an edited
// variant is flagged without being run, an edited reference model is refused.
TEST(SweepCli, ManifestVerifyHoldsAsRecordedAndFlagsWebgpuUnderOrt129) {
  PARITY_REQUIRE("webgpu-adapter");
  testing::TempDir tmp;
  const std::string fp32 = tmp.str() + "/conv.onnx", int8 = tmp.str() + "/conv_int8.onnx";
  fs::copy_file(kModels + "/sweep_conv.onnx", fp32);
  fs::copy_file(kModels + "/sweep_conv_int8.onnx", int8);
  const auto swept = testing::run_parity({"sweep", fp32, "--variants", "int8=" + int8, "-b", "cpu,webgpu",
                                          "--size", "x=16,16", "--out", tmp.str() + "/sweep", "--quiet"});
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  const std::string caps = tmp.str() + "/caps.toml";
  const auto wrote = testing::run_parity({"manifest", tmp.str() + "/sweep", "--out", caps});
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  ASSERT_EQ(testing::run_parity({"manifest", "check", caps}).exit_code, 0);

  const auto same = testing::run_parity({"manifest", "verify", caps, "--json", tmp.str() + "/same.json"});
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("result: all 2 enabled declarations hold"), std::string::npos) << same.output;
  const json held = read_json(tmp.str() + "/same.json");
  EXPECT_EQ(held["schema"], "parity.manifest-verify/1");
  EXPECT_EQ(held["all_hold"], true);
  EXPECT_EQ(declaration_in(held, "cpu")["variant"], "int8");
  EXPECT_EQ(declaration_in(held, "webgpu")["outcome"], "holds");
  EXPECT_EQ(declaration_in(held, "webgpu")["now"]["ort_version"], "1.30.0");

  const auto old = testing::run_parity(
      {"manifest", "verify", caps, "--ort-lib", kOrt129, "--json", tmp.str() + "/old.json"});
  EXPECT_EQ(old.exit_code, 1) << old.output;
  EXPECT_NE(old.output.find("NO LONGER HOLDS"), std::string::npos) << old.output;
  const json flagged = read_json(tmp.str() + "/old.json");
  EXPECT_EQ(flagged["all_hold"], false);
  EXPECT_EQ(flagged["no_longer_hold"], json::array({"webgpu"}));
  const json webgpu = declaration_in(flagged, "webgpu");
  EXPECT_EQ(webgpu["outcome"], "no_longer_holds");
  EXPECT_EQ(webgpu["now"]["status"], "unavailable");
  EXPECT_EQ(webgpu["then"]["ort_version"], "1.30.0");
  EXPECT_EQ(declaration_in(flagged, "cpu")["outcome"], "holds");
  EXPECT_EQ(declaration_in(flagged, "cpu")["now"]["ort_version"], "1.29.0");

  std::ofstream(int8, std::ios::app) << "x";
  const auto edited = testing::run_parity(
      {"manifest", "verify", caps, "--backends", "cpu", "--json", tmp.str() + "/edited.json", "--quiet"});
  EXPECT_EQ(edited.exit_code, 1) << edited.output;
  const json changed = read_json(tmp.str() + "/edited.json");
  ASSERT_EQ(changed["declarations"].size(), 1u);
  EXPECT_EQ(changed["declarations"][0]["outcome"], "file_changed");
  EXPECT_TRUE(changed["declarations"][0]["now"].is_null()) << "a changed file must not be run";

  std::ofstream(fp32, std::ios::app) << "x";
  const auto refused = testing::run_parity({"manifest", "verify", caps, "--quiet"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("the reference model " + fp32 + " changed since the sweep"),
            std::string::npos)
      << refused.output;
}

// The upgrade gate on onnxruntime-web, with a real miscompute: MaxPool with dilations is right on
// 1.30.0's web-webgpu (the native WebGPU EP) and wrong on 1.22.0's (JSEP ignores the dilations).
// Swept with both releases side by side, the manifest enables the new one and disables the old;
// verify as recorded holds, under --ort-web 1.22.0 the web-webgpu declaration no longer holds,
// and under --ort-web 1.30.0 the disabled one now passes (informational: exit 0).
TEST(SweepCli, ManifestVerifyFlagsWhatOnnxruntimeWeb122GetsWrong) {
  PARITY_REQUIRE("chromium");
  PARITY_REQUIRE("webgpu-adapter");
  testing::TempDir tmp;
  const auto swept = testing::run_parity({"sweep", kModels + "/sweep_pool_dilated.onnx", "-b",
                                          "web-webgpu,old=web-webgpu:ort-web=1.22.0", "--size", "x=8,8",
                                          "--out", tmp.str() + "/sweep", "--quiet"});
  ASSERT_EQ(swept.exit_code, 1) << "old has no correct variant: " << swept.output;
  const std::string caps = tmp.str() + "/caps.json";
  ASSERT_EQ(testing::run_parity({"manifest", tmp.str() + "/sweep", "--out", caps}).exit_code, 0);
  const json manifest = read_json(caps);
  ASSERT_EQ(manifest["backends"]["web-webgpu"]["enabled"], true) << manifest.dump(1);
  ASSERT_EQ(manifest["backends"]["old"]["enabled"], false) << manifest.dump(1);
  EXPECT_EQ(manifest["backends"]["old"]["runtime"]["ort_web"], "1.22.0");

  const auto same = testing::run_parity({"manifest", "verify", caps, "--json", tmp.str() + "/same.json"});
  EXPECT_EQ(same.exit_code, 0) << same.output;
  const json held = read_json(tmp.str() + "/same.json");
  EXPECT_EQ(declaration_in(held, "web-webgpu")["outcome"], "holds");
  EXPECT_EQ(declaration_in(held, "old")["outcome"], "still_fails");

  const auto old = testing::run_parity({"manifest", "verify", caps, "--ort-web", "1.22.0", "--backends",
                                        "web-webgpu", "--json", tmp.str() + "/old.json"});
  EXPECT_EQ(old.exit_code, 1) << old.output;
  const json flagged = read_json(tmp.str() + "/old.json");
  EXPECT_EQ(flagged["no_longer_hold"], json::array({"web-webgpu"}));
  const json row = declaration_in(flagged, "web-webgpu");
  EXPECT_EQ(row["outcome"], "no_longer_holds");
  EXPECT_EQ(row["now"]["status"], "mismatch");
  EXPECT_EQ(row["now"]["ort_version"], "1.22.0");
  EXPECT_EQ(row["then"]["ort_version"], "1.30.0");
  EXPECT_EQ(row["then"]["max_abs"], 0.0);
  ASSERT_TRUE(row["now"]["max_abs"].is_number());
  EXPECT_GT(row["now"]["max_abs"].get<double>(), 0.5) << "the undilated maximum is far off";

  const auto upgraded = testing::run_parity({"manifest", "verify", caps, "--ort-web", "1.30.0", "--backends",
                                             "old", "--json", tmp.str() + "/new.json"});
  EXPECT_EQ(upgraded.exit_code, 0) << "a disabled declaration never sets the exit status: "
                                   << upgraded.output;
  EXPECT_NE(upgraded.output.find("disabled, now passes"), std::string::npos) << upgraded.output;
  EXPECT_EQ(declaration_in(read_json(tmp.str() + "/new.json"), "old")["outcome"], "now_passes");
}

// A real cliff: the CPU EP's worker capped at 300 MiB (cpu:max-memory=300M) runs out of memory
// past some input size while the uncapped reference runs on. The search must name the boundary to
// one step, which two plain probes on either side of it then confirm independently.
TEST(SweepCli, SizeSearchFindsWhereACappedBackendRunsOutOfMemoryToOneStep) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/cliff", json_path = tmp.str() + "/cliff.json";
  const std::string backend = "small=cpu:max-memory=300M";
  const auto run = testing::run_parity({"sweep", kModels + "/sweep_conv.onnx", "-b", backend, "--size-search",
                                        "x=256,256", "--size-step", "32", "--out", out, "--json", json_path});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const json report = read_json(json_path);
  ASSERT_EQ(report["cells"].size(), 1u) << report.dump();
  const json& cliff = report["cells"][0]["cliff"];
  ASSERT_TRUE(cliff["largest_correct"].is_object()) << cliff.dump();
  ASSERT_TRUE(cliff["first_failing"].is_object()) << cliff.dump();
  const int64_t good = cliff["largest_correct"]["height"], bad = cliff["first_failing"]["height"];
  EXPECT_EQ(bad - good, 32) << "not within one step: " << cliff.dump();
  EXPECT_GT(good, 256);  // the start was correct: the search grew
  EXPECT_LT(bad, 4096);  // and found a cliff below --size-max
  EXPECT_LT(cliff["trials"].size(), 16u);
  EXPECT_EQ(cliff["budget"]["height"].get<int64_t>() % 32, 0);
  EXPECT_LT(cliff["budget"]["height"].get<int64_t>(), good);
  EXPECT_EQ(report["cells"][0]["size"], "x=" + std::to_string(good) + "x" + std::to_string(good));
  EXPECT_NE(run.output.find("largest correct x=" + std::to_string(good)), std::string::npos) << run.output;

  // Independently: probe at the boundary and one step above it.
  auto probe_at = [&](int64_t side) {
    const std::string hw = std::to_string(side);
    return testing::run_parity({"probe", kModels + "/sweep_conv.onnx", "--backends", backend, "--shape",
                                "x=1,3," + hw + "," + hw, "--json", tmp.str() + "/p" + hw + ".json"});
  };
  EXPECT_EQ(probe_at(good).exit_code, 0);
  const auto above = probe_at(bad);
  EXPECT_EQ(above.exit_code, 1) << above.output;
  const json failed = read_json(tmp.str() + "/p" + std::to_string(bad) + ".json");
  EXPECT_EQ(failed["backends"][1]["status"], "oom") << failed.dump();

  // The plan file carries the search, so a batch job runs the same cell.
  const json plan = read_json(fs::path(out) / "plan.json");
  EXPECT_EQ(plan["size_search"]["input"], "x");
  EXPECT_EQ(plan["size_search"]["step"], 32);

  // The manifest declares the proven size and the budget below it; check accepts it.
  const std::string caps = tmp.str() + "/caps.json";
  ASSERT_EQ(testing::run_parity({"manifest", out, "--out", caps}).exit_code, 0);
  const json m = read_json(caps);
  EXPECT_EQ(m["backends"]["small"]["max_size"], report["cells"][0]["size"]) << m.dump();
  EXPECT_EQ(m["backends"]["small"]["size_budget"],
            "x=" + std::to_string(cliff["budget"]["height"].get<int64_t>()) + "x" +
                std::to_string(cliff["budget"]["width"].get<int64_t>()));
  EXPECT_EQ(testing::run_parity({"manifest", "check", caps}).exit_code, 0);
}

// A size search killed mid-way keeps every size it probed (OUT/search-cell-K.jsonl): --resume replays
// them instead of probing again and ends on the same cliff as an uninterrupted search.
TEST(SweepCli, AKilledSizeSearchResumesFromItsRecordedSizes) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/cliff";
  const std::vector<std::string> search = {"sweep",
                                           kModels + "/sweep_conv.onnx",
                                           "-b",
                                           "small=cpu:max-memory=300M",
                                           "--size-search",
                                           "x=256,256",
                                           "--size-step",
                                           "32"};
  auto args = search;
  args.insert(args.end(), {"--out", out});
  SpawnOptions so;
  so.exe = PARITY_BIN;
  so.args = args;
  so.env_set = {{"TMPDIR", tmp.str()}};
  auto child = ChildProcess::spawn(so);
  ASSERT_TRUE(child.ok()) << child.error().describe();
  child->close_request();
  const fs::path journal = fs::path(out) / "search-cell-0.jsonl";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  char buf[4096];
  while (lines_in(journal) < 3 && std::chrono::steady_clock::now() < deadline) {
    pollfd p{child->log_fd(), POLLIN, 0};
    ::poll(&p, 1, 20);
    while (::read(child->log_fd(), buf, sizeof buf) > 0) {
    }
  }
  child->kill_group(SIGKILL);
  child->wait();
  const std::size_t recorded = lines_in(journal);
  ASSERT_GE(recorded, 3u) << "the search did not probe three sizes in time";
  ASSERT_FALSE(fs::exists(fs::path(out) / "results.jsonl")) << "the search finished before it was killed";

  auto resume = args;
  resume.insert(resume.end(), {"--resume", "--json", tmp.str() + "/resumed.json"});
  const auto resumed = testing::run_parity(resume);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  std::size_t replayed = 0;
  for (std::size_t at = 0;
       (at = resumed.output.find("(recorded before the interruption)", at)) != std::string::npos; ++at)
    ++replayed;
  EXPECT_EQ(replayed, recorded) << resumed.output;
  EXPECT_FALSE(fs::exists(journal)) << "the finished cell's result holds the search; the journal goes";

  auto whole = search;
  whole.insert(whole.end(), {"--out", tmp.str() + "/whole", "--json", tmp.str() + "/whole.json", "-q"});
  ASSERT_EQ(testing::run_parity(whole).exit_code, 0);
  const json a = read_json(tmp.str() + "/resumed.json")["cells"][0]["cliff"];
  const json b = read_json(tmp.str() + "/whole.json")["cells"][0]["cliff"];
  EXPECT_EQ(a["largest_correct"], b["largest_correct"]);
  EXPECT_EQ(a["first_failing"], b["first_failing"]);
  EXPECT_EQ(a["trials"].size(), b["trials"].size());
}

// `--variants fp16` alone: Parity converts the model itself, and the ladder judges it by fp16's rule.
TEST(SweepCli, AGeneratedFp16VariantJoinsTheLadder) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/sweep", json_path = tmp.str() + "/sweep.json";
  const auto run =
      testing::run_parity({"sweep", kModels + "/sweep_conv.onnx", "--variants", "fp16", "--opt-levels",
                           "all,basic", "--size", "x=32,32", "--out", out, "--json", json_path});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const fs::path generated = fs::path(out) / "variants" / "sweep_conv.fp16.onnx";
  EXPECT_TRUE(fs::is_regular_file(generated)) << run.output;
  const json report = read_json(json_path);
  ASSERT_EQ(report["cells"].size(), 4u);
  for (const auto& c : report["cells"]) EXPECT_EQ(c["status"], "ok") << c.dump();
  EXPECT_EQ(report["plan"]["variants"][1]["precision"], "fp16");
  EXPECT_EQ(report["ladder"][0]["smallest_correct"], "fp16") << report["ladder"].dump();
  EXPECT_LT(fs::file_size(generated), fs::file_size(kModels + "/sweep_conv.onnx"));
}

// MODEL need not be fp32: its row is labelled, and judged, by what its weights are (an fp16 export
// given as MODEL was held to float32's bound and failed on cpu at another opt level). A variant
// named after nothing gets its precision from its weights too.
TEST(SweepCli, PrecisionsComeFromTheWeightsWhereNoNameSaysThem) {
  testing::TempDir tmp;
  const std::string json_path = tmp.str() + "/sweep.json";
  const std::string int8 = kModels + "/sweep_conv_int8.onnx", fp32 = kModels + "/sweep_conv.onnx";
  const auto run = testing::run_parity({"sweep", int8, "--variants", "plain=" + fp32, "--size", "x=16,16",
                                        "--out", tmp.str() + "/sweep", "--json", json_path, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const json report = read_json(json_path);
  EXPECT_EQ(report["plan"]["variants"][0]["name"], "int8");
  EXPECT_EQ(report["plan"]["variants"][0]["precision"], "int8");
  EXPECT_EQ(report["plan"]["variants"][1]["precision"], "fp32");
  EXPECT_NE(run.output.find("smallest correct variant int8 ("), std::string::npos) << run.output;

  const auto clash = testing::run_parity({"sweep", int8, "--variants", "int8=" + int8, "-q"});
  EXPECT_EQ(clash.exit_code, 2) << clash.output;
  EXPECT_NE(clash.output.find("MODEL itself is int8"), std::string::npos) << clash.output;
  const auto generate =
      testing::run_parity({"sweep", int8, "--variants", "fp16", "--out", tmp.str() + "/generated", "-q"});
  EXPECT_EQ(generate.exit_code, 2) << generate.output;
  EXPECT_NE(generate.output.find("MODEL is already int8"), std::string::npos) << generate.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "generated")) << "a refused sweep writes nothing";
}

// A model where nothing can become float16 gets no "fp16" variant that is float32 inside: the sweep
// says why and judges nothing.
TEST(SweepCli, Fp16VariantOfAModelWithNothingToConvertIsNotMade) {
  testing::TempDir tmp;
  const auto run = testing::run_parity({"sweep", kModels + "/fp16_nothing.onnx", "--variants", "fp16", "-b",
                                        "cpu", "--out", tmp.str() + "/sweep", "-q"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("nothing to convert"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "sweep" / "variants" / "fp16_nothing.fp16.onnx"));
  EXPECT_FALSE(fs::exists(tmp.path() / "sweep" / "results.jsonl"));
}

}  // namespace
}  // namespace parity
