// Interrupts are results: a verb stopped by SIGINT/SIGTERM says "interrupted" in its JSON and text,
// with what finished, exits 128 + the signal, and records nothing unfinished as a verdict. Each
// signal is sent once a progress line shows the run under way (never after a sleep).
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/json_file.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity {
namespace {

using nlohmann::json;
using testing::read_json;

const std::string kModel = std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx";

// probe: the reference runs, `slow` hangs in run; Ctrl-C. Before: `ok: true` with no backends and
// "all 0 backends agree".
TEST(InterruptCli, AnInterruptedProbeIsNoVerdict) {
  testing::TempDir tmp;
  const auto out = tmp / "probe.json";
  const auto r = testing::run_parity_signalled(
      {"probe", kModel, "--backends", "cpu,slow=cpu", "--dim", "batch=2", "--json", out.string()}, "at once",
      SIGINT, {{"PARITY_TEST_FAULT", "run:hang@slow"}}, 120);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.output;
  EXPECT_EQ(r.output.find("agree"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("result: interrupted"), std::string::npos) << r.output;
  const json j = read_json(out);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j.value("interrupted", false), true) << j.dump();
  EXPECT_EQ(j["ok"], false);
  EXPECT_TRUE(j["backends"].empty()) << "no row may carry a verdict: " << j["backends"].dump();
  EXPECT_NE(j["unfinished"].dump().find("slow"), std::string::npos) << j.dump();
}

// bisect: the plain target run hangs while the exposed rounds run; Ctrl-C. Before: "the target
// could not be run" (or "no divergence" with nothing compared).
TEST(InterruptCli, AnInterruptedBisectIsNoVerdict) {
  testing::TempDir tmp;
  const auto out = tmp / "bisect.json";
  const auto r = testing::run_parity_signalled(
      {"bisect", kModel, "--backend", "slow=cpu", "--dim", "batch=2", "--json", out.string()}, "(run ",
      SIGINT, {{"PARITY_TEST_FAULT", "run:hang@slow"}}, 120);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.output;
  EXPECT_EQ(r.output.find("no divergence"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("could not be run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("interrupted: "), std::string::npos) << r.output;
  const json j = read_json(out);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j.value("interrupted", false), true) << j.dump();
  EXPECT_TRUE(j["error"].is_null()) << "an interruption is not the target failing: " << j["error"].dump();
  EXPECT_TRUE(j["first_divergent"].is_null());
  EXPECT_TRUE(j["final_mismatch"].is_null()) << "the plain run never finished";
}

// --samples is bounded by --max-input-size over all samples, refused before anything is built.
TEST(InterruptCli, SamplesBeyondTheInputCapAreRefusedUpFront) {
  const auto r = testing::run_parity({"probe", kModel, "--backends", "cpu", "--dim", "batch=1", "--samples",
                                      "1000", "--max-input-size", "100K"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--samples 1000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("100.0 KiB --max-input-size cap"), std::string::npos) << r.output;
}

// One SIGTERM stops a run that is still building a million samples, there and then.
TEST(InterruptCli, OneSigtermStopsALongSampleBuild) {
  const auto r = testing::run_parity_signalled(
      {"probe", kModel, "--backends", "cpu", "--dim", "batch=1", "--samples", "1000000"}, "input samples ...",
      SIGTERM, {}, 300);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.output;
  EXPECT_NE(r.output.find("interrupted while generating input sample"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace parity
