// WebServer over real HTTP (cpp-httplib's client): headers that make the page cross-origin
// isolated, MIME types, blobs, upload slots, and that withdrawn or unknown URLs are 404s.
#include "backend/browser/web_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

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

  const std::string slot = server_->open_slot();
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

  const std::string slot = server_->open_slot();
  auto posted = client_->Post(slot + "/0", "", "application/octet-stream");
  ASSERT_TRUE(posted) << httplib::to_string(posted.error());
  EXPECT_EQ(posted->status, 204);
  auto taken = server_->take_slot(slot);
  ASSERT_EQ(taken.count(0), 1u) << "an empty output is still an output";
  EXPECT_TRUE(taken[0].empty());
}

}  // namespace
}  // namespace parity::backend::browser
