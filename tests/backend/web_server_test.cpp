// WebServer over real HTTP (cpp-httplib's client): headers that make the page cross-origin
// isolated, MIME types, blobs, upload slots, and that withdrawn or unknown URLs are 404s.
#include "backend/browser/web_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "support/temp_dir.h"

namespace parity::backend::browser {
namespace {

class WebServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = WebServer::start();
    ASSERT_TRUE(s.ok()) << s.error().describe();
    server_ = std::move(s).value();
    ASSERT_EQ(server_->origin().rfind("http://127.0.0.1:", 0), 0u) << server_->origin();
    client_ = std::make_unique<httplib::Client>(server_->origin());
  }
  std::unique_ptr<WebServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(WebServerTest, HarnessIsCrossOriginIsolatedJavaScript) {
  auto page = client_->Get("/parity/page.html");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Cross-Origin-Opener-Policy"), "same-origin");
  EXPECT_EQ(page->get_header_value("Cross-Origin-Embedder-Policy"), "require-corp");
  EXPECT_NE(page->body.find("/parity/harness.mjs"), std::string::npos);
  auto js = client_->Get("/parity/harness.mjs");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript");
  EXPECT_NE(js->body.find("globalThis.parity"), std::string::npos);
}

TEST_F(WebServerTest, MountedDistServesWasmAndModulesWithTheirTypes) {
  parity::testing::TempDir dir;
  std::ofstream(dir / "ort.test.mjs") << "export const x = 1;\n";
  std::ofstream(dir / "ort.test.wasm", std::ios::binary) << std::string("\0asm\1\0\0\0", 8);
  const std::string prefix = server_->mount(dir.str());
  EXPECT_EQ(server_->mount(dir.str()), prefix) << "the same folder keeps its prefix";
  auto wasm = client_->Get(prefix + "ort.test.wasm");
  ASSERT_TRUE(wasm);
  EXPECT_EQ(wasm->status, 200);
  EXPECT_EQ(wasm->get_header_value("Content-Type"), "application/wasm");
  EXPECT_EQ(wasm->get_header_value("Cross-Origin-Resource-Policy"), "same-origin");
  EXPECT_EQ(wasm->body.size(), 8u);
  auto mjs = client_->Get(prefix + "ort.test.mjs");
  ASSERT_TRUE(mjs);
  EXPECT_EQ(mjs->get_header_value("Content-Type"), "text/javascript");
}

TEST_F(WebServerTest, BlobsAndSlotsCarryRawBytes) {
  std::string bytes(1 << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31);
  const std::string url = server_->publish_bytes(bytes);
  auto got = client_->Get(url);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, bytes);
  server_->withdraw(url);
  auto gone = client_->Get(url);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 404);

  parity::testing::TempDir dir;
  std::ofstream(dir / "model.onnx", std::ios::binary) << bytes;
  const std::string file_url = server_->publish_file((dir / "model.onnx").string());
  auto file = client_->Get(file_url);
  ASSERT_TRUE(file);
  EXPECT_EQ(file->body, bytes) << "file blobs stream in chunks; the bytes must survive";

  const std::string slot = server_->open_slot(2);
  auto posted = client_->Post(slot + "/1", bytes, "application/octet-stream");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 204);
  auto taken = server_->take_slot(slot);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[1], bytes);
  EXPECT_TRUE(server_->take_slot(slot).empty());
  auto closed = client_->Post(slot + "/0", "x", "application/octet-stream");
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->status, 404) << "a taken slot accepts nothing more";
  // httplib calls its logger after the response is sent, so the count may trail the reply.
  for (int i = 0; i < 100 && server_->not_found_count() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(server_->not_found_count(), 2);
}

TEST_F(WebServerTest, EmptyTensorsCrossWithAnExplicitZeroLength) {
  // Zero-element tensors (Split with zero-size splits, Tril on a 0xN matrix) have empty blobs.
  // Without "Content-Length: 0" a keep-alive fetch() waits for a body forever (found by the ONNX
  // node suite: nine tests hung on every web backend).
  client_->set_read_timeout(std::chrono::seconds(5));
  const std::string url = server_->publish_bytes("");
  auto got = client_->Get(url);
  ASSERT_TRUE(got) << httplib::to_string(got.error());
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->get_header_value("Content-Length"), "0");
  EXPECT_TRUE(got->body.empty());

  parity::testing::TempDir dir;
  std::ofstream(dir / "empty.bin", std::ios::binary);
  auto file = client_->Get(server_->publish_file((dir / "empty.bin").string()));
  ASSERT_TRUE(file) << httplib::to_string(file.error());
  EXPECT_EQ(file->get_header_value("Content-Length"), "0");

  const std::string slot = server_->open_slot(1);
  auto posted = client_->Post(slot + "/0", "", "application/octet-stream");
  ASSERT_TRUE(posted) << httplib::to_string(posted.error());
  EXPECT_EQ(posted->status, 204);
  auto taken = server_->take_slot(slot);
  ASSERT_EQ(taken.count(0), 1u) << "an empty output is still an output";
  EXPECT_TRUE(taken[0].empty());
}

// What a raw request got: the response's status line, and how much of the body the server let the
// client send before it closed the connection.
struct RawExchange {
  std::string status_line;
  uint64_t body_sent = 0;
};

// Sends `head` and then up to `body_bytes` of body in 1 MiB writes, reading the response whenever
// it comes; stops when the server closes the connection (a refusal), the whole body is sent (the
// server read it all), or nothing moves for 10 s.
RawExchange raw_request(const std::string& origin, const std::string& head, uint64_t body_bytes) {
  RawExchange x;
  const int port = std::stoi(origin.substr(origin.rfind(':') + 1));
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return x;
  std::size_t head_sent = 0, in_chunk = 0;  // in_chunk: bytes of the current 1 MiB write sent
  const std::string chunk(1 << 20, 'x');
  std::string reply;
  for (bool closed = false; !closed;) {
    const bool head_done = head_sent == head.size();
    const bool more = !head_done || x.body_sent < body_bytes;
    if (!more && !reply.empty()) break;
    pollfd p{fd, static_cast<short>(POLLIN | (more ? POLLOUT : 0)), 0};
    if (::poll(&p, 1, 10000) <= 0) break;
    if (p.revents & POLLIN) {
      char buf[4096];
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      reply.append(buf, static_cast<std::size_t>(n));
    }
    if ((p.revents & POLLOUT) && more) {
      const char* data = head_done ? chunk.data() + in_chunk : head.data() + head_sent;
      const std::size_t left = head_done ? static_cast<std::size_t>(std::min<uint64_t>(
                                               chunk.size() - in_chunk, body_bytes - x.body_sent))
                                         : head.size() - head_sent;
      const ssize_t n = ::send(fd, data, left, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) closed = true;
      if (n > 0 && !head_done) head_sent += static_cast<std::size_t>(n);
      if (n > 0 && head_done) {
        x.body_sent += static_cast<uint64_t>(n);
        in_chunk = (in_chunk + static_cast<std::size_t>(n)) % chunk.size();
      }
    }
    if (p.revents & (POLLERR | POLLHUP)) closed = true;
  }
  ::close(fd);
  x.status_line = reply.substr(0, reply.find("\r\n"));
  return x;
}

constexpr uint64_t kBodyOffered = uint64_t{128} << 20;  // what the client tries to send
constexpr uint64_t kUnread = uint64_t{32} << 20;        // more than loopback socket buffers hold

std::string post_head(const std::string& path, const std::string& length) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n" +
         "Content-Length: " + length + "\r\n\r\n";
}

// A 1.5 GB POST from a local process pushed Parity to about 1 GB: the server read any body before
// looking at it. Now token, route and declared length are checked first, and a refused request's
// connection is closed with its body unread, so the sender gets no further than the kernel's
// socket buffers (measured as bytes the client could send, not as time).
TEST_F(WebServerTest, ARefusedUploadIsClosedWithItsBodyUnread) {
  const std::string slot = server_->open_slot(1, 1 << 20);  // one output of at most 1 MiB
  const std::string forged = "/out/" + std::string(32, 'a') + "/0";
  struct Case {
    std::string what, head, status;
  };
  const std::vector<Case> cases = {
      {"a wrong token", post_head(forged, "1500000000"), "404"},
      {"more than the slot takes", post_head(slot + "/0", "1500000000"), "413"},
      {"an output the slot does not expect", post_head(slot + "/7", "1500000000"), "403"},
      {"no length", "POST " + slot + "/0 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", "411"},
      {"a body on a GET", "GET /parity/page.html HTTP/1.1\r\nHost: x\r\nContent-Length: 1500000000\r\n\r\n",
       "400"},
      {"an unknown route", post_head("/anything", "1500000000"), "404"},
  };
  for (const auto& c : cases) {
    const RawExchange x = raw_request(server_->origin(), c.head, kBodyOffered);
    EXPECT_NE(x.status_line.find(" " + c.status + " "), std::string::npos) << c.what << ": " << x.status_line;
    EXPECT_LT(x.body_sent, kUnread) << c.what << ": the server read the body of a refused request";
  }
  // The slot still takes its real output, once.
  auto posted = client_->Post(slot + "/0", std::string(1000, 'y'), "application/octet-stream");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 204);
  auto again = client_->Post(slot + "/0", "z", "application/octet-stream");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 403) << "an output is uploaded once";
  auto taken = server_->take_slot(slot);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].size(), 1000u);
}

}  // namespace
}  // namespace parity::backend::browser
