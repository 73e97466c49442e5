// conformance/diff.h: what changed between two conformance results, and whether a result meets
// the expectations recorded in the repository (tests/fixtures/conformance/expected_subset.json).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "conformance/runner.h"
#include "parity/result.h"

namespace parity::conformance {

struct StateChange {
  std::string test, op;
  std::string backend_a, backend_b;  // labels in A and in B
  State before = State::skipped, after = State::skipped;
  std::string reason_after;  // B's message
  bool regression = false;   // see is_regression
};

// passed -> anything else, or a good state (passed, not-supported, skipped) -> a bad one.
bool is_regression(State before, State after);

struct DiffResult {
  std::vector<std::pair<std::string, std::string>> pairs;  // backend pairs compared (A label, B label)
  std::vector<StateChange> changes;                        // by test name, then pair
  std::vector<std::string> only_in_a, only_in_b;           // test names
  int regressions() const;
};

// Compares the backends named in `pairs` ("A_LABEL" -> "B_LABEL"); empty pairs = every label the
// two files share, or their only backends when each has exactly one. Errors: a label not in its
// file, or no backend in common.
Result<DiffResult> diff_reports(const ConformanceReport& a, const ConformanceReport& b,
                                std::vector<std::pair<std::string, std::string>> pairs = {});

// Markdown: one row per change, regressions first, then the tests found in one file only.
std::string diff_table(const DiffResult& d);

// Expectations: test -> backend label -> state name.
using Expectations = std::map<std::string, std::map<std::string, std::string>>;

// {"schema": "parity.conformance-expect/1", "tests": {"test_abs": {"cpu": "passed", ...}}}
// "flaky" is refused as an expected state (it is a failure, not a behaviour to pin).
Result<Expectations> expectations_from_json(const nlohmann::json& j);
nlohmann::json expectations_to_json(const ConformanceReport& report, const std::string& note);

// One line per broken expectation, naming the test, the backend, what was expected and what
// happened (with the reason); empty when every expectation holds. An expected test missing from
// the report, or a backend the report lacks, is a broken expectation too.
std::vector<std::string> check_expectations(const ConformanceReport& report, const Expectations& expected);

}  // namespace parity::conformance
