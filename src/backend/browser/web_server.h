// backend/browser/web_server.h: the localhost-only HTTP server a browser backend's page talks to.
//
// It serves the page-side harness (/parity/), onnxruntime-web distributions (/ort/N/), and per-run
// blobs (model bytes, input tensors) and upload slots (output tensors), so tensors cross the
// browser boundary as raw bytes, never as JSON numbers. Every response carries COOP/COEP/CORP
// headers, which make the page cross-origin isolated (SharedArrayBuffer, so multi-threaded wasm
// works), and the right MIME types (.mjs as JavaScript, .wasm as application/wasm, which
// WebAssembly.instantiateStreaming requires).
//
// Bound to 127.0.0.1 on an ephemeral port; blob and slot URLs carry 128-bit random tokens. Any
// local process can connect, so no request body is read before its method, route, token and
// declared length (Content-Length, required) are checked: a POST that is not an expected output of
// an open slot, or larger than the slot has left, is refused and its connection closed unread, and
// no other request may carry a body. The server runs on its own threads; every method is
// thread-safe. The destructor stops and joins.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "parity/result.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace parity::backend::browser {

class WebServer {
 public:
  // The most an upload slot takes by default: onnxruntime-web's tensors live in a 4 GiB wasm32
  // heap or a WebGPU buffer no larger, so a run's outputs never need more.
  static constexpr uint64_t kMaxUploadBytes = uint64_t{4} << 30;

  // Starts serving; Stage::create_env errors if no local port can be bound.
  static Result<std::unique_ptr<WebServer>> start();

  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;
  ~WebServer();

  const std::string& origin() const { return origin_; }  // "http://127.0.0.1:PORT"
  std::string harness_url() const;                       // the harness page

  // Serves the files of `dir` under a URL prefix (returned, ending in '/'); the same folder
  // always gets the same prefix. Cached by the browser: distributions do not change.
  std::string mount(const std::string& dir);

  // Publishes a file (read from disk on each request, so large models are not held in memory) or
  // a copy of `bytes` at a fresh URL, until withdraw().
  std::string publish_file(const std::string& path);
  std::string publish_bytes(std::string bytes);
  void withdraw(const std::string& url);

  // An upload slot: the page POSTs output `i` (0 <= i < outputs, each once) to `<slot>/<i>`, at
  // most `max_bytes` in all; take_slot() returns and forgets every body received, by index.
  std::string open_slot(std::size_t outputs, uint64_t max_bytes = kMaxUploadBytes);
  std::map<int, std::string> take_slot(const std::string& slot);

  // Requests answered with 404 so far (a harness bug or a withdrawn blob); for diagnostics.
  int not_found_count() const;  // counted by the logger, just after each 404 is sent

 private:
  struct Slot {
    std::size_t outputs = 0;  // indices 0 .. outputs-1
    uint64_t bytes_left = 0;  // budget for bodies not yet received (reserved when admitted)
    std::map<int, std::string> bodies;
    std::map<int, bool> admitted;  // indices whose POST passed the checks
  };
  struct Blob {
    std::string path;                          // file blob when non-empty
    std::shared_ptr<const std::string> bytes;  // memory blob otherwise
  };

  WebServer();
  std::string token();
  void install_routes();
  void serve_blob(const httplib::Request& req, httplib::Response& res);  // GET /blob/ID
  // Before any body is read: true when the request may go on to its route; otherwise `res` is the
  // refusal, sent on a connection that is then closed with the body unread.
  bool admit(const httplib::Request& req, httplib::Response& res);

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::string origin_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> mounts_;  // dir -> prefix
  std::map<std::string, Blob> blobs_;          // token -> blob
  std::map<std::string, Slot> slots_;          // token -> slot
  uint64_t token_counter_ = 0;
  uint64_t token_salt_[2] = {0, 0};
  int not_found_ = 0;
};

}  // namespace parity::backend::browser
