#include "backend/browser/web_server.h"

#include <httplib.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <regex>
#include <utility>
#include <vector>

#include "backend/browser/browser_trace.h"
#include "backend/browser/harness_source.h"

namespace parity::backend::browser {
namespace {

constexpr const char* kPage =
    "<!doctype html>\n<meta charset=\"utf-8\">\n<title>parity harness</title>\n"
    "<script type=\"module\" src=\"/parity/harness.mjs\"></script>\n";

constexpr std::size_t kFileChunk = 1 << 20;

// A raw-byte body streamed from `provider`. httplib sends a zero-length provider with neither a
// length nor chunking, and a keep-alive fetch() then waits for a body forever, so an empty body
// is set explicitly (zero-element tensors).
void set_octet_body(httplib::Response& res, std::size_t size, httplib::ContentProvider provider) {
  if (size == 0) {
    res.set_content("", "application/octet-stream");
    return;
  }
  res.set_content_provider(size, "application/octet-stream", std::move(provider));
}

// A refusal sent before the body is read: the provider writes the whole message and then reports
// failure, which makes httplib close the connection, so the unread body is never parsed as a next
// request (httplib 0.11 has no other way to drop a connection from a handler).
void refuse(httplib::Response& res, int status, std::string message) {
  res.status = status;
  res.set_header("Connection", "close");
  auto text = std::make_shared<const std::string>(std::move(message) + "\n");
  res.set_content_provider(text->size(), "text/plain",
                           [text](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             sink.write(text->data() + offset, length);
                             return false;
                           });
}

// The declared body length: a plain decimal Content-Length, or nothing.
std::optional<uint64_t> declared_length(const httplib::Request& req) {
  if (req.get_header_value_count("Content-Length") != 1) return std::nullopt;
  const std::string v = req.get_header_value("Content-Length");
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) return std::nullopt;
  return n;
}

Error server_error(std::string message) {
  Error e = make_error(ErrorKind::error, Stage::create_env, std::move(message),
                       "Parity serves the page on 127.0.0.1; check that loopback networking works");
  e.backend = "browser";
  return e;
}

}  // namespace

WebServer::WebServer() : server_(std::make_unique<httplib::Server>()) {
  std::random_device rd;
  token_salt_[0] = (uint64_t{rd()} << 32) ^ rd();
  token_salt_[1] = (uint64_t{rd()} << 32) ^ rd();
}

Result<std::unique_ptr<WebServer>> WebServer::start() {
  std::unique_ptr<WebServer> s(new WebServer());
  s->install_routes();
  const int port = s->server_->bind_to_any_port("127.0.0.1");
  if (port <= 0) return server_error("cannot bind an HTTP port on 127.0.0.1");
  s->origin_ = "http://127.0.0.1:" + std::to_string(port);
  httplib::Server* raw = s->server_.get();
  s->thread_ = std::thread([raw] { raw->listen_after_bind(); });
  for (int i = 0; i < 200 && !raw->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (!raw->is_running()) return server_error("the HTTP server on " + s->origin_ + " did not start");
  return s;
}

WebServer::~WebServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string WebServer::harness_url() const { return origin_ + "/parity/page.html"; }

std::string WebServer::token() {
  // Unguessable by other local processes; unique within this server by the counter.
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t n = ++token_counter_;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx",
                static_cast<unsigned long long>(token_salt_[0] ^ (n * 0x9E3779B97F4A7C15ull)),
                static_cast<unsigned long long>(token_salt_[1] + n));
  return buf;
}

// Streams a registered blob: from memory, or from its file in chunks so a large model is never
// held whole by the server.
void WebServer::serve_blob(const httplib::Request& req, httplib::Response& res) {
  Blob blob;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blobs_.find(req.matches[1]);
    if (it == blobs_.end()) {
      res.status = 404;
      return;
    }
    blob = it->second;
  }
  res.set_header("Cache-Control", "no-store");
  if (blob.path.empty()) {
    auto bytes = blob.bytes;
    set_octet_body(res, bytes->size(),
                   [bytes](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                     return sink.write(bytes->data() + offset, length);
                   });
    return;
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(blob.path, ec);
  auto in = std::make_shared<std::ifstream>(blob.path, std::ios::binary);
  if (ec || !*in) {
    res.status = 404;
    return;
  }
  set_octet_body(res, static_cast<std::size_t>(size),
                 [in](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                   std::vector<char> buf(std::min(length, kFileChunk));
                   in->seekg(static_cast<std::streamoff>(offset));
                   in->read(buf.data(), static_cast<std::streamsize>(buf.size()));
                   const auto got = static_cast<std::size_t>(in->gcount());
                   return got > 0 && sink.write(buf.data(), got);
                 });
}

bool WebServer::admit(const httplib::Request& req, httplib::Response& res) {
  const bool has_body = req.has_header("Transfer-Encoding") || declared_length(req).value_or(0) > 0 ||
                        (req.has_header("Content-Length") && !declared_length(req));
  if (req.method != "POST") {
    if (!has_body) return true;
    refuse(res, 400, "this server takes no request body on " + req.method);
    return false;
  }
  static const std::regex upload(R"(/out/([0-9a-f]{32})/(\d{1,9}))");
  std::smatch m;
  if (!std::regex_match(req.path, m, upload)) {
    refuse(res, 404, "no such route");
    return false;
  }
  if (req.has_header("Transfer-Encoding") || req.has_header("Content-Encoding")) {
    refuse(res, 411, "an upload must declare its Content-Length, unencoded");
    return false;
  }
  const auto length = declared_length(req);
  if (!length) {
    refuse(res, 411, "an upload must declare its Content-Length");
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(m[1].str());
  if (it == slots_.end()) {
    refuse(res, 404, "no such upload slot");
    return false;
  }
  Slot& slot = it->second;
  const auto index = std::stoull(m[2].str());
  if (index >= slot.outputs || slot.admitted.count(static_cast<int>(index))) {
    refuse(res, 403, "output " + m[2].str() + " is not expected in this slot");
    return false;
  }
  if (*length > slot.bytes_left) {
    refuse(
        res, 413,
        "output " + m[2].str() + " (" + std::to_string(*length) + " bytes) exceeds what the run can produce");
    return false;
  }
  slot.bytes_left -= *length;
  slot.admitted[static_cast<int>(index)] = true;
  return true;
}

void WebServer::install_routes() {
  httplib::Server& s = *server_;
  // Cross-origin isolation for SharedArrayBuffer (threaded wasm); CORP so workers may load.
  s.set_default_headers({{"Cross-Origin-Opener-Policy", "same-origin"},
                         {"Cross-Origin-Embedder-Policy", "require-corp"},
                         {"Cross-Origin-Resource-Policy", "same-origin"}});
  s.set_file_extension_and_mimetype_mapping("mjs", "text/javascript");
  s.set_file_extension_and_mimetype_mapping("js", "text/javascript");
  s.set_file_extension_and_mimetype_mapping("wasm", "application/wasm");
  s.set_keep_alive_max_count(1000);

  s.Get("/parity/page.html", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(kPage, "text/html; charset=utf-8");
  });
  s.Get("/parity/harness.mjs", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(std::string(kHarnessSource), "text/javascript");
  });
  s.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });

  s.Get(R"(/blob/([0-9a-f]+))",
        [this](const httplib::Request& req, httplib::Response& res) { serve_blob(req, res); });

  // Reached only through admit(), which checked slot, index and declared length: the body is read
  // into a buffer of that length and no further.
  s.Post(R"(/out/([0-9a-f]+)/(\d+))",
         [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
           const uint64_t want = declared_length(req).value_or(0);
           std::string body;
           body.reserve(want);
           const bool whole = read([&](const char* data, std::size_t n) {
             if (body.size() + n > want) return false;
             body.append(data, n);
             return true;
           });
           if (!whole || body.size() != want)
             return refuse(res, 400, "the body does not match its Content-Length");
           std::lock_guard<std::mutex> lock(mu_);
           auto it = slots_.find(req.matches[1]);
           if (it == slots_.end()) return refuse(res, 404, "no such upload slot");
           it->second.bodies[std::stoi(req.matches[2])] = std::move(body);
           res.status = 204;
         });

  // Every request passes admit() before httplib reads a body; the cap is a second line.
  s.set_payload_max_length(kMaxUploadBytes);
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (trace_enabled())
      trace("http>",
            req.method + " " + req.path + " from " + req.remote_addr + ":" + std::to_string(req.remote_port));
    return admit(req, res) ? httplib::Server::HandlerResponse::Unhandled
                           : httplib::Server::HandlerResponse::Handled;
  });
  s.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    if (trace_enabled())
      trace("http<", req.method + " " + req.path + " " + std::to_string(res.status) + " from port " +
                         std::to_string(req.remote_port));
    if (res.status != 404) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++not_found_;
  });
}

std::string WebServer::mount(const std::string& dir) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = mounts_.find(dir); it != mounts_.end()) return it->second;
  }
  std::string prefix;
  {
    std::lock_guard<std::mutex> lock(mu_);
    prefix = "/ort/" + std::to_string(mounts_.size());
    mounts_[dir] = prefix + "/";
  }
  server_->set_mount_point(prefix, dir, {{"Cache-Control", "max-age=86400, immutable"}});
  return prefix + "/";
}

std::string WebServer::publish_file(const std::string& path) {
  const std::string t = token();
  std::lock_guard<std::mutex> lock(mu_);
  blobs_[t] = Blob{path, nullptr};
  return "/blob/" + t;
}

std::string WebServer::publish_bytes(std::string bytes) {
  const std::string t = token();
  std::lock_guard<std::mutex> lock(mu_);
  blobs_[t] = Blob{{}, std::make_shared<const std::string>(std::move(bytes))};
  return "/blob/" + t;
}

void WebServer::withdraw(const std::string& url) {
  const auto slash = url.rfind('/');
  std::lock_guard<std::mutex> lock(mu_);
  blobs_.erase(url.substr(slash + 1));
}

std::string WebServer::open_slot(std::size_t outputs, uint64_t max_bytes) {
  const std::string t = token();
  std::lock_guard<std::mutex> lock(mu_);
  Slot& slot = slots_[t];
  slot.outputs = outputs;
  slot.bytes_left = max_bytes;
  return "/out/" + t;
}

std::map<int, std::string> WebServer::take_slot(const std::string& slot) {
  const auto slash = slot.rfind('/');
  std::lock_guard<std::mutex> lock(mu_);
  auto node = slots_.extract(slot.substr(slash + 1));
  return node.empty() ? std::map<int, std::string>{} : std::move(node.mapped().bodies);
}

int WebServer::not_found_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return not_found_;
}

}  // namespace parity::backend::browser
