// probe runs native backends at once (each in its own worker) and, with --one-at-a-time, in turn.
// The reference is made to hang until --timeout: a target that started before the reference ended
// ran beside it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/json_file.h"
#include "support/run_parity.h"

namespace parity {
namespace {

using nlohmann::json;

json probe_with_hanging_reference(const testing::TempDir& tmp, bool one_at_a_time) {
  const std::string out = tmp.str() + (one_at_a_time ? "/serial.json" : "/at-once.json");
  std::vector<std::string> args{"probe",      std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx",
                                "--backends", "cpu,target=cpu",
                                "--dim",      "batch=2",
                                "--timeout",  "3",
                                "--json",     out,
                                "-q"};
  if (one_at_a_time) args.push_back("--one-at-a-time");
  auto r = testing::run_parity(args, {{"PARITY_TEST_FAULT", "run:hang@cpu"}});
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the reference timed out
  return testing::read_json(out);
}

TEST(ProbeConcurrency, NativeBackendsRunAtOnce) {
  testing::TempDir tmp;
  const json report = probe_with_hanging_reference(tmp, false);
  const json& ref = report["backends"][0];
  const json& target = report["backends"][1];
  ASSERT_EQ(ref["status"], "timeout");
  EXPECT_GE(ref["timing_ms"]["wall"].get<double>(), 3000);
  // The target ran while the reference hung, and is judged after it (nothing to compare against).
  EXPECT_LT(target["timing_ms"]["start"].get<double>(), 1000);
  EXPECT_EQ(target["status"], "error");
}

TEST(ProbeConcurrency, OneAtATimeWaitsForEachBackend) {
  testing::TempDir tmp;
  const json report = probe_with_hanging_reference(tmp, true);
  const json& ref = report["backends"][0];
  const json& target = report["backends"][1];
  ASSERT_EQ(ref["status"], "timeout");
  EXPECT_GE(target["timing_ms"]["start"].get<double>(), ref["timing_ms"]["wall"].get<double>());
}

}  // namespace
}  // namespace parity
