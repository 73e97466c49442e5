// core/file_io: the one writer of every output. Real files, devices, FIFOs and links in a temp dir.
#include "core/file_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace parity {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

mode_t type_of(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

TEST(FileIo, WritesAFileWholeAndLeavesNoTemporary) {
  TempDir dir;
  const auto path = dir / "report.json";
  ASSERT_TRUE(write_text_file(path, "old\n").ok());
  ASSERT_TRUE(write_text_file(path, "new\n").ok());
  EXPECT_EQ(read_all(path), "new\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

// A device is written in place, never replaced: a node of /dev/full's numbers in the temp dir (the
// real /dev/full is the CLI test's), so a writer that renames over it cannot harm the machine.
TEST(FileIo, AFullDeviceIsATypedIoErrorAndStaysADevice) {
  TempDir dir;
  const auto full = dir / "full";
  if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) GTEST_SKIP() << "cannot mknod here";
  const int probe = ::open(full.c_str(), O_WRONLY);
  if (probe < 0) GTEST_SKIP() << "devices cannot be opened on this file system (nodev)";
  ::close(probe);
  const auto st = write_text_file(full, "{}\n");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::io);
  EXPECT_EQ(st.error().stage, Stage::write_output);
  EXPECT_NE(st.error().message.find("cannot write " + full.string()), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("No space left on device"), std::string::npos) << st.error().message;
  EXPECT_EQ(type_of(full), S_IFCHR);
}

TEST(FileIo, AFifoReceivesTheBytesInPlace) {
  TempDir dir;
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader is open first (non-blocking), so the writer's open does not wait for one.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(write_text_file(fifo, "through the pipe\n").ok());
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe\n");
  EXPECT_EQ(type_of(fifo), S_IFIFO);
}

TEST(FileIo, ASymlinkIsWrittenThroughAndStaysALink) {
  TempDir dir;
  const auto real = dir / "real.json", link = dir / "link.json";
  std::ofstream(real) << "a much longer old content than the new one\n";
  fs::create_symlink(real, link);
  ASSERT_TRUE(write_text_file(link, "new\n").ok());
  EXPECT_EQ(type_of(link), S_IFLNK);
  EXPECT_EQ(read_all(real), "new\n");
}

// The old writer used "PATH.tmp-PID": a link planted there made it overwrite the link's target.
TEST(FileIo, ALinkPlantedAtThePredictableTemporaryNameIsNotFollowed) {
  TempDir dir;
  const auto victim = dir / "victim.txt", path = dir / "report.json";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, path.string() + ".tmp-" + std::to_string(::getpid()));
  ASSERT_TRUE(write_text_file(path, "report\n").ok());
  EXPECT_EQ(read_all(victim), "precious\n");
  EXPECT_EQ(type_of(path), S_IFREG);
  EXPECT_EQ(read_all(path), "report\n");
}

TEST(FileIo, ADirectoryIsRefusedSayingWhatItIs) {
  TempDir dir;
  fs::create_directory(dir / "out");
  const auto st = write_text_file(dir / "out", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::io);
  EXPECT_NE(st.error().message.find("is a directory, not a file"), std::string::npos) << st.error().message;
  EXPECT_TRUE(fs::is_directory(dir / "out"));
}

TEST(FileIo, AMissingFolderIsNamedWithoutABareErrno) {
  TempDir dir;
  std::ofstream(dir / "plain") << "x";
  const auto st = write_text_file(dir / "plain" / "repro.json", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find((dir / "plain").string() + " is not a folder"), std::string::npos)
      << st.error().message;
}

TEST(FileIo, AnUncommittedOutputLeavesTheTargetAsItWas) {
  TempDir dir;
  const auto path = dir / "model.onnx";
  std::ofstream(path) << "the user's model";
  {
    auto f = OutputFile::open(path);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->write("half a mod").ok());
  }  // never committed (a failed serialization)
  EXPECT_EQ(read_all(path), "the user's model");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(FileIo, StreamsAndCopiesIntoOneOutput) {
  TempDir dir;
  std::ofstream(dir / "src") << "head:";
  auto f = OutputFile::open(dir / "dst");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->copy_from(dir / "src").ok());
  ASSERT_TRUE(f->write("tail").ok());
  ASSERT_TRUE(f->commit().ok());
  EXPECT_EQ(read_all(dir / "dst"), "head:tail");
}

TEST(FileIo, StdoutIsNamedByDashAndItsDeviceNames) {
  for (const char* p : {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
    EXPECT_TRUE(names_stdout(p)) << p;
  for (const char* p : {"", "stdout", "/dev/stderr", "/dev/fd/10", "./-"}) EXPECT_FALSE(names_stdout(p)) << p;
}

TEST(SafeFileName, NeverLeavesItsFolder) {
  const std::vector<std::string> names{"../../x/pwned",
                                       "..",
                                       ".",
                                       "",
                                       "/etc/passwd",
                                       "a/b",
                                       "-rf",
                                       ".hidden",
                                       std::string("nul\0byte", 8),
                                       std::string(300, 'a')};
  for (const std::string& name : names) {
    const std::string s = safe_file_name(name);
    EXPECT_FALSE(s.empty()) << name;
    EXPECT_EQ(s.find('/'), std::string::npos) << name;
    EXPECT_EQ(s.find('\0'), std::string::npos) << name;
    EXPECT_NE(s.front(), '.') << name;
    EXPECT_NE(s.front(), '-') << name;
    EXPECT_LE(s.size(), 90u) << name;
    EXPECT_EQ(fs::path(s).filename().string(), s) << name;
  }
  EXPECT_EQ(safe_file_name("output_0"), "output_0");  // a plain name stays readable
  EXPECT_EQ(safe_file_name("webgpu"), "webgpu");
  // Names that differ stay different after sanitising.
  std::set<std::string> seen{safe_file_name("a/b"), safe_file_name("a_b"), safe_file_name("a:b")};
  EXPECT_EQ(seen.size(), 3u);
}

}  // namespace
}  // namespace parity
