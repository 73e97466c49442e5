// ScratchDir: a private folder removed with its contents, and (for Chromium, whose socket paths the
// kernel caps at 107 bytes) one whose path stays short however long TMPDIR is.
#include "core/scratch_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.h"

namespace parity {
namespace {

namespace fs = std::filesystem;

// Sets TMPDIR for the test's lifetime and puts the old value back.
class TmpdirAs {
 public:
  explicit TmpdirAs(const std::string& dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirAs() {
    if (old_.empty())
      ::unsetenv("TMPDIR");
    else
      ::setenv("TMPDIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(ScratchDir, IsRemovedWithEverythingInIt) {
  fs::path where;
  {
    auto dir = ScratchDir::create("parity-scratch-test", Stage::none);
    ASSERT_TRUE(dir.ok()) << dir.error().describe();
    where = dir->path();
    std::ofstream(*dir / "file") << "x";
    EXPECT_TRUE(fs::exists(where / "file"));
  }
  EXPECT_FALSE(fs::exists(where));
}

TEST(ScratchDir, AShortFolderStaysShortUnderALongTmpdir) {
  testing::TempDir base;
  fs::path longdir = base.path();
  while (longdir.string().size() < 120) longdir /= "a-rather-long-folder-name";
  fs::create_directories(longdir);
  ASSERT_GE(longdir.string().size(), 120u);
  TmpdirAs tmpdir(longdir.string());

  auto plain = ScratchDir::create("parity-chromium", Stage::none);
  ASSERT_TRUE(plain.ok()) << plain.error().describe();
  EXPECT_EQ(plain->path().parent_path(), longdir) << "without a limit, TMPDIR is honoured";

  auto short_dir = ScratchDir::create("parity-chromium", Stage::none, 61);
  ASSERT_TRUE(short_dir.ok()) << short_dir.error().describe();
  EXPECT_LE(short_dir->str().size(), 61u) << short_dir->str();
  EXPECT_TRUE(fs::is_directory(short_dir->path()));

  TmpdirAs short_tmpdir(base.str());  // short enough: TMPDIR is used
  auto under_tmpdir = ScratchDir::create("parity-chromium", Stage::none, 61);
  ASSERT_TRUE(under_tmpdir.ok());
  if (base.str().size() + 23 <= 61) {
    EXPECT_EQ(under_tmpdir->path().parent_path(), base.path());
  }
}

}  // namespace
}  // namespace parity
