// `parity inspect`'s suggested flags, pasted as printed, run every real model of the corpus on the
// CPU: a data-driven sweep of third_party/models and its corpus/ folder, so a model the bootstrap
// adds is covered without a new test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/requirements.h"
#include "support/run_parity.h"

namespace parity {
namespace {

namespace fs = std::filesystem;

// The words of inspect's "flags" line (what a user pastes after `parity probe MODEL`); empty when
// the model needs none.
std::vector<std::string> printed_flags(const std::string& output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("flags ", 0) == 0) {
      std::istringstream words(line.substr(6));
      std::vector<std::string> flags;
      for (std::string w; words >> w;) flags.push_back(w);
      return flags;
    }
  return {};
}

TEST(InspectFlags, RunAsPastedOnEveryCorpusModel) {
  PARITY_REQUIRE("ocr-models");
  PARITY_REQUIRE("vad-model");
  PARITY_REQUIRE("corpus-models");
  const fs::path root = fs::path(PARITY_THIRD_PARTY) / "models";
  std::vector<fs::path> models;
  for (const fs::path& dir : {root, root / "corpus"})
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".onnx") models.push_back(e.path());
  std::sort(models.begin(), models.end());
  ASSERT_GE(models.size(), 16u) << "the bootstrap's npm corpus";
  int with_flags = 0;
  for (const fs::path& model : models) {
    SCOPED_TRACE(model.string());
    const auto inspect = testing::run_parity({"inspect", model.string()});
    ASSERT_EQ(inspect.exit_code, 0) << inspect.output;
    std::vector<std::string> args = {"probe", model.string()};
    const std::vector<std::string> flags = printed_flags(inspect.output);
    with_flags += !flags.empty();
    args.insert(args.end(), flags.begin(), flags.end());
    for (const char* a : {"--backends", "cpu", "-q"}) args.push_back(a);
    const auto probe = testing::run_parity(args);
    EXPECT_EQ(probe.exit_code, 0) << inspect.output << "\n" << probe.output;
  }
  EXPECT_GE(with_flags, 7) << "PP-OCR x3, Silero x3 and the mel spectrogram need flags";
}

}  // namespace
}  // namespace parity
