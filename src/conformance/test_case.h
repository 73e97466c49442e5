// conformance/test_case.h: the ONNX backend test-data layout, as Debian's libonnx-testdata ships
// it: one folder per test holding model.onnx and test_data_set_N/{input,output}_K.pb.
//
// Discovery only lists folders; loading reads the model's interface and every tensor. Whatever
// Parity cannot feed or compare (sequence, optional or map values, unknown element types,
// unreadable files) becomes a skip reason on the TestCase, never a silent drop.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "model/onnx_model.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::conformance {

// Where Debian's libonnx-testdata installs the ONNX node tests.
inline constexpr const char* kDefaultSuiteDir = "/usr/share/libonnx-testdata/data/node";

// A test found on disk; nothing read yet.
struct SuiteTest {
  std::string name;  // folder path relative to the suite dir ("test_abs", or "node/test_abs")
  std::filesystem::path dir;
};

// Every folder under `suite_dir` (up to 3 levels deep) that holds model.onnx, sorted by name,
// keeping those whose name matches any of `filters` (fnmatch globs; empty = all). Errors: the
// suite dir is missing or holds no test (io / bad_input, with a hint naming libonnx-testdata).
Result<std::vector<SuiteTest>> discover_tests(const std::filesystem::path& suite_dir,
                                              const std::vector<std::string>& filters);

// fnmatch-style match of a whole test name against any glob; an empty list matches everything.
bool matches_any(const std::string& name, const std::vector<std::string>& globs);

struct DataSet {
  std::vector<NamedTensor> inputs;    // named after the graph inputs, by position
  std::vector<NamedTensor> expected;  // named after the graph outputs, by position
};

struct TestCase {
  SuiteTest test;
  model::ModelInfo model;        // valid unless skip_reason says the model was unreadable
  std::string op;                // the op under test, for the per-op table
  std::vector<std::string> ops;  // every op type in the graph, sorted
  int64_t opset = 0;             // default-domain opset (0 when unknown)
  std::vector<DataSet> data_sets;
  std::string skip_reason;  // non-empty: cannot be run by Parity; says why
};

// Reads model.onnx and every data set. Never fails: problems become skip_reason.
TestCase load_test_case(const SuiteTest& test);

// The op a graph exercises: its only non-Constant op type, else the op types joined by '+'.
// (load_test_case names an `_expanded` test after its plain sibling's op plus " (expanded)".)
std::string primary_op(const model::ModelInfo& model);

}  // namespace parity::conformance
