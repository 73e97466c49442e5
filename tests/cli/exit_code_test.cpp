// The exit-code table (src/cli/verb.h, docs/architecture.md "Exit codes"), held by every verb: an
// invalid input (a missing file, an empty one, one that is not what the verb reads) is 2 on every
// verb, an invocation that selects no work is 4, and a result that cannot be written to stdout is
// not 0. One row per verb and input; a verb added without a row here is a gap in the table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/verb.h"
#include "support/run_parity.h"

namespace parity {
namespace {

namespace fs = std::filesystem;

const std::string kModels = PARITY_TEST_MODELS;

// What stands in for the verb's main input.
enum class Broken { missing, empty, garbage };

const char* name_of(Broken b) {
  switch (b) {
    case Broken::missing: return "a missing file";
    case Broken::empty: return "an empty file";
    case Broken::garbage: return "a file that is not protobuf, TOML or JSON";
  }
  return "?";
}

// `{IN}` is the broken input, `{TMP}` a scratch folder.
struct Row {
  std::vector<std::string> args;
};

const std::vector<Row>& invalid_input_rows() {
  static const std::vector<Row> rows = {
      {{"inspect", "{IN}"}},
      {{"probe", "{IN}", "--backends", "cpu", "-q"}},
      {{"bisect", "{IN}", "--backend", "cpu", "--out", "{TMP}/repro", "-q"}},
      {{"verify", "{IN}", "-q"}},
      {{"sweep", "{IN}", "-b", "cpu", "--out", "{TMP}/sweep", "-q"}},
      {{"sweep", "--plan", "{IN}", "--cell", "0", "--out", "{TMP}/cell", "-q"}},
      {{"sweep", "merge", "{IN}"}},
      {{"manifest", "{IN}", "--out", "{TMP}/caps.toml"}},
      {{"manifest", "verify", "{IN}", "-q"}},
      {{"accept", "{IN}", "--sample", "x=" + std::string(PARITY_SOURCE_DIR) + "/examples/receipt.png", "-q"}},
      {{"lint", "{IN}"}},
      {{"lint", "{IN}", "-b", "cpu", "-q"}},
      {{"chaos", "{IN}", "--backend", "webgpu", "-q"}},
      {{"conformance", "--suite", "{IN}", "--backends", "cpu", "-q"}},
      {{"conformance", "diff", "{IN}", "{IN}"}},
      {{"findings", "verify", "--findings", "{IN}", "-q"}},
      {{"hunt", "--backends", "same=cpu", "--cases", "1", "--journal", "{IN}", "-q"}},
  };
  return rows;
}

std::vector<std::string> fill(const std::vector<std::string>& args, const std::string& in,
                              const std::string& tmp) {
  std::vector<std::string> out;
  for (std::string a : args) {
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"{IN}", in}, {"{TMP}", tmp}})
      for (std::size_t at; (at = a.find(key)) != std::string::npos;) a.replace(at, key.size(), value);
    out.push_back(a);
  }
  return out;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s = "parity";
  for (const auto& a : args) s += " " + a;
  return s;
}

TEST(ExitCodes, AnInvalidInputIsTwoOnEveryVerb) {
  for (const Broken broken : {Broken::missing, Broken::empty, Broken::garbage}) {
    for (const Row& row : invalid_input_rows()) {
      testing::TempDir tmp;
      const std::string in = tmp.str() + "/input.onnx";
      if (broken == Broken::empty) std::ofstream(in).flush();
      if (broken == Broken::garbage) std::ofstream(in) << "\x01\x02 not a model {[ = \xff\n";
      if (row.args[0] == "hunt" && broken != Broken::garbage)
        continue;  // an empty or new journal is a fresh hunt
      const auto args = fill(row.args, in, tmp.str());
      const auto r = testing::run_parity(args, {}, 120);
      EXPECT_EQ(r.exit_code, cli::kExitUsage) << joined(args) << " on " << name_of(broken) << ":\n"
                                              << r.output;
      EXPECT_NE(r.output.find("parity "), std::string::npos) << joined(args) << ": no message\n" << r.output;
    }
  }
}

TEST(ExitCodes, NothingToDoIsFourOnEveryVerbThatCanHaveIt) {
  testing::TempDir tmp;
  fs::create_directories(tmp.path() / "no-findings");  // a findings base that holds none
  const std::vector<std::vector<std::string>> rows = {
      {"chaos", kModels + "/matmul_add_relu.onnx", "--backend", "cpu", "-q"},
      {"conformance", "--filter", "test_no_such_op_anywhere*", "--backends", "cpu", "-q"},
      {"hunt", "--backends", "same=cpu", "--cases", "0", "-q"},
      {"findings", "verify", "--findings", tmp.str() + "/no-findings", "-b", "cpu", "-q"},
  };
  for (const auto& args : rows) {
    const auto r = testing::run_parity(args, {}, 120);
    EXPECT_EQ(r.exit_code, cli::kExitNothing) << joined(args) << ":\n" << r.output;
    EXPECT_NE(r.output.find("nothing to do"), std::string::npos) << joined(args) << ":\n" << r.output;
  }
}

// The table is in every verb's --help, so a CI author reads the same codes everywhere.
TEST(ExitCodes, EveryVerbsHelpEndsWithTheTable) {
  for (const char* verb : {"inspect", "probe", "bisect", "verify", "sweep", "manifest", "accept", "lint",
                           "findings", "conformance", "chaos", "hunt", "backends"}) {
    const auto r = testing::run_parity({verb, "--help"});
    EXPECT_EQ(r.exit_code, 0) << verb;
    EXPECT_NE(r.output.find(cli::kExitTable), std::string::npos) << verb << ":\n" << r.output;
  }
}

// A result that could not be written (stdout on a full disk) is not a success.
TEST(ExitCodes, AFailedWriteToStdoutIsNotASuccess) {
  const auto r = testing::run_command({"/bin/sh", "-c", "exec \"$0\" inspect \"$1\" > /dev/full", PARITY_BIN,
                                       kModels + "/matmul_add_relu.onnx"});
  EXPECT_EQ(r.exit_code, cli::kExitUsage) << r.output;
  EXPECT_NE(r.output.find("cannot write to standard output"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace parity
