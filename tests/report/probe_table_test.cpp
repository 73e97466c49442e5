// The probe's text table: the lines under it say why an output failed, and only what is true of it.
#include "report/probe_table.h"

#include <gtest/gtest.h>

namespace parity::report {
namespace {

// A report whose target fails output `y` by `over` of `n` elements at cosine 1.
probe::ProbeReport report_with(int64_t n, int64_t over) {
  probe::ProbeReport r;
  r.reference = "cpu";
  probe::BackendReport ref;
  ref.name = ref.ep = "cpu";
  ref.is_reference = true;
  probe::BackendReport target;
  target.name = target.ep = "webgpu";
  target.status = probe::BackendStatus::mismatch;
  probe::OutputReport y;
  y.name = "y";
  y.verdict = Verdict::mismatch;
  y.failed_rule = "allclose";
  Comparison c;
  c.finite_pairs = n;
  c.elements_over_tol = over;
  c.max_abs = 0.02;
  c.cosine = 1.0;
  y.comparison = c;
  target.outputs.push_back(y);
  r.backends = {ref, target};
  return r;
}

TEST(ProbeTable, ANearTieHintNeedsElementsThatAgree) {
  EXPECT_NE(probe_table(report_with(10000, 3)).find("are off and the rest agree"), std::string::npos);
  // One element, and it is off (Silero VAD's speech probability): no "rest" agrees, no near-tie.
  EXPECT_EQ(probe_table(report_with(1, 1)).find("are off and the rest agree"), std::string::npos);
}

}  // namespace
}  // namespace parity::report
