// External data locations come from untrusted files: Parity reads, links and serves only files in
// the model's folder or below it.
#include "model/external_data.h"

#include <gtest/gtest.h>

#include <fstream>

#include "model/onnx_model.h"
#include "support/temp_dir.h"

namespace parity::model {
namespace {

namespace fs = std::filesystem;
const fs::path kModels = PARITY_TEST_MODELS;

TEST(ExternalData, InspectListsTheFiles) {
  const auto info = inspect_model(kModels / "external_matmul_add_relu.onnx");
  ASSERT_TRUE(info.ok()) << info.error().describe();
  EXPECT_EQ(info->external_initializers, 2u);
  EXPECT_EQ(info->external_files, std::vector<std::string>{"external_matmul_add_relu.data"});
  EXPECT_TRUE(inspect_model(kModels / "matmul_add_relu.onnx")->external_files.empty());
}

TEST(ExternalData, ALocationOutsideTheModelsFolderIsRefused) {
  const fs::path model = kModels / "external_matmul_add_relu.onnx";
  for (const char* location : {"/etc/passwd", "../../etc/passwd", "a/../../b.data", ""}) {
    const auto r = external_file_path(model, location);
    ASSERT_FALSE(r.ok()) << location;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input) << location;
    EXPECT_EQ(r.error().stage, Stage::load_model);
  }
  const auto missing = external_file_path(model, "nowhere.data");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::io);
  const auto found = external_file_path(model, "external_matmul_add_relu.data");
  ASSERT_TRUE(found.ok()) << found.error().describe();
  EXPECT_EQ(*found, kModels / "external_matmul_add_relu.data");
}

TEST(ExternalData, ProvidedFilesAppearBesideTheCopyAndNothingEscapes) {
  testing::TempDir tmp;
  const fs::path model = kModels / "external_matmul_add_relu.onnx";
  ASSERT_TRUE(provide_external_files(model, {"external_matmul_add_relu.data"}, tmp.path()).ok());
  EXPECT_EQ(fs::file_size(tmp / "external_matmul_add_relu.data"),
            fs::file_size(kModels / "external_matmul_add_relu.data"));
  // Twice is fine (bisect writes several exposed models into one folder).
  EXPECT_TRUE(provide_external_files(model, {"external_matmul_add_relu.data"}, tmp.path()).ok());
  const auto escape = provide_external_files(model, {"../escaped.data"}, tmp.path() / "sub");
  ASSERT_FALSE(escape.ok());
  EXPECT_EQ(escape.error().kind, ErrorKind::bad_input);
  EXPECT_FALSE(fs::exists(tmp / "escaped.data"));
}

}  // namespace
}  // namespace parity::model
