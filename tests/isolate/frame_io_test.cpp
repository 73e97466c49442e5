#include "isolate/frame_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace parity::isolate {
namespace {

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
};

TEST(FrameIo, RoundTripsFramesOfAnySizeThroughNonBlockingReader) {
  SocketPair sp;
  const std::string big(3 << 20, 'x');  // larger than a socket buffer: exercises partial reads
  std::thread writer([&] {
    ASSERT_TRUE(write_frame(sp.fd[0], FrameType::stage, "run").ok());
    ASSERT_TRUE(write_frame(sp.fd[0], FrameType::tensor, big).ok());
    ASSERT_TRUE(write_frame(sp.fd[0], FrameType::result, "").ok());
    ::shutdown(sp.fd[0], SHUT_WR);
  });
  ::fcntl(sp.fd[1], F_SETFL, O_NONBLOCK);
  FrameReader reader;
  std::vector<Frame> frames;
  bool open = true;
  while (open) {
    auto fed = reader.feed(sp.fd[1]);
    ASSERT_TRUE(fed.ok());
    open = *fed;
    for (;;) {
      auto f = reader.next();
      ASSERT_TRUE(f.ok());
      if (!*f) break;
      frames.push_back(std::move(**f));
    }
  }
  writer.join();
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].type, FrameType::stage);
  EXPECT_EQ(frames[0].text(), "run");
  EXPECT_EQ(frames[1].text(), big);
  EXPECT_EQ(frames[2].type, FrameType::result);
}

TEST(FrameIo, CorruptStreamIsAnErrorNotACrash) {
  SocketPair sp;
  const std::string garbage = "GARBAGE-NOT-A-FRAME-HEADER";
  ASSERT_EQ(::write(sp.fd[0], garbage.data(), garbage.size()), static_cast<ssize_t>(garbage.size()));
  ::fcntl(sp.fd[1], F_SETFL, O_NONBLOCK);
  FrameReader reader;
  ASSERT_TRUE(reader.feed(sp.fd[1]).ok());
  auto f = reader.next();
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("out of sync"), std::string::npos);
}

TEST(FrameIo, FramesBeforeACorruptionAreStillDelivered) {
  SocketPair sp;
  ASSERT_TRUE(write_frame(sp.fd[0], FrameType::stage, "run").ok());
  const std::string garbage = "GARBAGE-NOT-A-FRAME-HEADER";
  ASSERT_EQ(::write(sp.fd[0], garbage.data(), garbage.size()), static_cast<ssize_t>(garbage.size()));
  ::fcntl(sp.fd[1], F_SETFL, O_NONBLOCK);
  FrameReader reader;
  ASSERT_TRUE(reader.feed(sp.fd[1]).ok());
  auto first = reader.next();
  ASSERT_TRUE(first.ok() && *first);
  EXPECT_EQ((*first)->text(), "run");
  EXPECT_FALSE(reader.next().ok());
}

TEST(FrameIo, PartsAreWrittenAsOnePayload) {
  SocketPair sp;
  ASSERT_TRUE(write_frame(sp.fd[0], FrameType::result, {as_bytes("ab"), as_bytes(""), as_bytes("cde")}).ok());
  auto f = read_frame_blocking(sp.fd[1]);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->text(), "abcde");
}

TEST(FrameIo, WritingToADeadPeerIsAnIoErrorNotSigpipe) {
  SocketPair sp;
  ::close(sp.fd[1]);
  sp.fd[1] = -1;
  auto st = write_frame(sp.fd[0], FrameType::request, std::string(1 << 20, 'q'));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::io);
}

TEST(FrameIo, BlockingReadRejectsTruncatedFrame) {
  SocketPair sp;
  ASSERT_TRUE(write_frame(sp.fd[0], FrameType::request, "{}").ok());
  ASSERT_TRUE(read_frame_blocking(sp.fd[1]).ok());
  const char partial[] = {'P', 'R', 'T', 'Y', 'Q', 10, 0, 0, 0, 0, 0, 0, 0, 'a'};
  ASSERT_EQ(::write(sp.fd[0], partial, sizeof partial), static_cast<ssize_t>(sizeof partial));
  ::shutdown(sp.fd[0], SHUT_WR);
  EXPECT_FALSE(read_frame_blocking(sp.fd[1]).ok());
}

}  // namespace
}  // namespace parity::isolate
