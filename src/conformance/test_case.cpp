#include "conformance/test_case.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "model/tensor_proto.h"

namespace parity::conformance {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxDepth = 3;  // suite root -> e.g. data/node/test_abs
constexpr std::string_view kExpandedSuffix = "_expanded";

void collect(const fs::path& root, const fs::path& dir, int depth, std::vector<SuiteTest>& out) {
  std::error_code ec;
  if (fs::exists(dir / "model.onnx", ec)) {
    out.push_back({fs::relative(dir, root, ec).generic_string(), dir});
    return;  // a test folder holds data sets, not more tests
  }
  if (depth >= kMaxDepth) return;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) collect(root, it->path(), depth + 1, out);
}

// Indexes in "input_12.pb" order by number, not by text, so input_10 follows input_9.
std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<long, fs::path>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0 || it->path().extension() != ".pb") continue;
    try {
      found.emplace_back(std::stol(name.substr(prefix.size())), it->path());
    } catch (...) {
      continue;  // not one of ours (e.g. "input_a.pb")
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

// Reads input_K/output_K of one data set against the declared values; an error is a skip reason.
Result<std::vector<NamedTensor>> read_values(const fs::path& set_dir, const std::string& prefix,
                                             const std::vector<model::ValueInfo>& declared) {
  std::vector<NamedTensor> out;
  const auto files = numbered_files(set_dir, prefix);
  if (files.size() > declared.size())
    return make_error(ErrorKind::bad_input, Stage::prepare_inputs,
                      set_dir.filename().string() + " has " + std::to_string(files.size()) + " " + prefix +
                          "*.pb files but the graph declares " + std::to_string(declared.size()));
  for (std::size_t k = 0; k < files.size(); ++k) {
    // ONNX 1.12 stores bfloat16 as uint16: read every tensor as the type the graph declares.
    std::optional<DType> as;
    if (declared[k].dtype != DType::undefined) as = declared[k].dtype;
    auto t = model::read_tensor_proto(files[k], as);
    if (!t.ok()) return t.error();
    t->name = declared[k].name;
    out.push_back(std::move(t).value());
  }
  return out;
}

}  // namespace

bool matches_any(const std::string& name, const std::vector<std::string>& globs) {
  if (globs.empty()) return true;
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& g) { return ::fnmatch(g.c_str(), name.c_str(), 0) == 0; });
}

Result<std::vector<SuiteTest>> discover_tests(const fs::path& suite_dir,
                                              const std::vector<std::string>& filters) {
  std::error_code ec;
  if (!fs::is_directory(suite_dir, ec))
    return make_error(
        ErrorKind::io, Stage::load_model, "suite folder " + suite_dir.string() + " does not exist",
        "install Debian's libonnx-testdata (apt-get install libonnx-testdata) or point --suite at "
        "an ONNX backend test-data folder (test_*/model.onnx)");
  std::vector<SuiteTest> all;
  collect(suite_dir, suite_dir, 0, all);
  if (all.empty())
    return make_error(
        ErrorKind::bad_input, Stage::load_model,
        "no test (a folder with model.onnx) under " + suite_dir.string(),
        "point --suite at the folder holding test_*/model.onnx, e.g. " + std::string(kDefaultSuiteDir));
  std::vector<SuiteTest> kept;
  for (auto& t : all)
    if (matches_any(t.name, filters)) kept.push_back(std::move(t));
  std::sort(kept.begin(), kept.end(), [](const SuiteTest& a, const SuiteTest& b) { return a.name < b.name; });
  return kept;
}

std::string primary_op(const model::ModelInfo& model) {
  std::vector<std::string> ops;
  for (const auto& [op, n] : model.op_counts)
    if (op != "Constant") ops.push_back(op);
  if (ops.empty()) return model.op_counts.empty() ? "(no op)" : "Constant";
  if (ops.size() == 1) return ops[0];
  std::string joined;
  for (const auto& op : ops) joined += (joined.empty() ? "" : "+") + op;
  return joined;
}

TestCase load_test_case(const SuiteTest& test) {
  TestCase tc;
  tc.test = test;
  auto info = model::inspect_model(test.dir / "model.onnx");
  if (!info.ok()) {
    // The path is the test's own folder: say only what is wrong with it.
    std::string why = info.error().message;
    const std::string origin = (test.dir / "model.onnx").string() + ": ";
    if (why.rfind(origin, 0) == 0) why = why.substr(origin.size());
    const bool non_tensor = why.find("not a typed tensor") != std::string::npos;
    tc.op = non_tensor ? "(sequence/optional I/O)" : "(unreadable model)";
    tc.skip_reason = "model: " + why;
    return tc;
  }
  tc.model = std::move(info).value();
  for (const auto& [op, n] : tc.model.op_counts) tc.ops.push_back(op);
  if (auto it = tc.model.opsets.find(""); it != tc.model.opsets.end()) tc.opset = it->second;
  tc.op = primary_op(tc.model);
  // An expanded test is the op's function body; name it after the op of its plain sibling.
  const std::string& name = test.name;
  if (name.size() > kExpandedSuffix.size() &&
      name.compare(name.size() - kExpandedSuffix.size(), kExpandedSuffix.size(), kExpandedSuffix) == 0) {
    fs::path sibling = test.dir;
    sibling.replace_filename(
        test.dir.filename().string().substr(0, test.dir.filename().string().size() - kExpandedSuffix.size()));
    if (auto sib = model::inspect_model(sibling / "model.onnx"); sib.ok())
      tc.op = primary_op(*sib) + " (expanded)";
  }
  for (const auto& out : tc.model.outputs) {
    if (out.dtype == DType::undefined) {
      tc.skip_reason = "output '" + out.name +
                       "' is not a plain tensor (sequence, optional or map): Parity compares tensors only";
      return tc;
    }
  }
  std::vector<fs::path> sets;
  std::error_code ec;
  for (fs::directory_iterator it(test.dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && it->path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(it->path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    tc.skip_reason = "no test_data_set_* folder";
    return tc;
  }
  for (const auto& dir : sets) {
    DataSet ds;
    auto inputs = read_values(dir, "input_", tc.model.inputs);
    if (!inputs.ok()) {
      tc.skip_reason = "unreadable input in " + dir.filename().string() + ": " + inputs.error().message;
      return tc;
    }
    auto expected = read_values(dir, "output_", tc.model.outputs);
    if (!expected.ok()) {
      tc.skip_reason =
          "unreadable expected output in " + dir.filename().string() + ": " + expected.error().message;
      return tc;
    }
    if (expected->empty()) {
      tc.skip_reason = dir.filename().string() + " has no output_*.pb: nothing to compare";
      return tc;
    }
    ds.inputs = std::move(inputs).value();
    ds.expected = std::move(expected).value();
    tc.data_sets.push_back(std::move(ds));
  }
  return tc;
}

}  // namespace parity::conformance
