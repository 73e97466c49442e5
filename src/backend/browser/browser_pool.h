// backend/browser/browser_pool.h: headless Chromium instances kept alive across runs.
//
// A BrowserHost is one Chromium (ChromiumSession) plus the WebServer its page loads from, and
// remembers which onnxruntime-web bundle its page has loaded, so consecutive runs with the same
// bundle reuse the page (and its compiled wasm) and only create a new InferenceSession.
// A BrowserPool hands hosts out one at a time (a Lease) and takes them back; a host that timed
// out, crashed or was interrupted is marked broken and destroyed on return (Chromium killed,
// profile removed), so the next lease starts a fresh browser. One pool serves every run of a
// verb: a whole sweep or conformance run pays the browser start once per concurrent job.
// Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/browser/chromium_session.h"
#include "backend/browser/web_server.h"
#include "parity/result.h"

namespace parity::backend::browser {

struct BrowserConfig {
  std::string executable = kDefaultChromium;
  std::vector<std::string> extra_args;
  bool operator==(const BrowserConfig&) const = default;
};

class BrowserHost {
 public:
  static Result<std::unique_ptr<BrowserHost>> launch(const BrowserConfig& config, double timeout_s);

  ChromiumSession& chromium() { return *chromium_; }
  WebServer& server() { return *server_; }
  const BrowserConfig& config() const { return config_; }

  // What the page has loaded ("" = nothing yet) and what parity.load() said about it
  // (onnxruntime-web version, threads, cross-origin isolation). WebBackend compares and navigates.
  std::string page_key;
  nlohmann::json page_info;
  std::string browser_version;  // Browser.getVersion's product, asked once
  // Set after a timeout, crash or interruption: the pool destroys the host instead of reusing it.
  bool broken = false;
  int runs = 0;  // runs served, for reports

 private:
  BrowserHost() = default;
  BrowserConfig config_;
  std::unique_ptr<WebServer> server_;  // outlives chromium_ (declared first, destroyed last)
  std::unique_ptr<ChromiumSession> chromium_;
};

class BrowserPool {
 public:
  BrowserPool() = default;
  BrowserPool(const BrowserPool&) = delete;
  BrowserPool& operator=(const BrowserPool&) = delete;

  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    BrowserHost& operator*() { return *host_; }
    BrowserHost* operator->() { return host_.get(); }
    bool reused() const { return reused_; }

   private:
    friend class BrowserPool;
    Lease(BrowserPool* pool, std::unique_ptr<BrowserHost> host, bool reused);
    BrowserPool* pool_;
    std::unique_ptr<BrowserHost> host_;
    bool reused_;
  };

  // An idle host with the same config, or a newly launched one (Stage::create_env errors).
  Result<Lease> acquire(const BrowserConfig& config, double timeout_s);

  int launched() const;  // browsers started so far
  int idle() const;

 private:
  void give_back(std::unique_ptr<BrowserHost> host);
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<BrowserHost>> idle_;
  int launched_ = 0;
};

}  // namespace parity::backend::browser
