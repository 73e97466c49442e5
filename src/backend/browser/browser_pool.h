// backend/browser/browser_pool.h: headless Chromium instances kept alive across runs.
//
// A BrowserHost is one Chromium (ChromiumSession) plus the WebServer its page loads from, and
// remembers which onnxruntime-web bundle its page has loaded, so consecutive runs with the same
// bundle reuse the page (and its compiled wasm) and only create a new InferenceSession.
// A BrowserPool hands hosts out one at a time (a Lease) and takes them back; a host that timed
// out, crashed or was interrupted is marked broken and destroyed on return (Chromium killed,
// profile removed), so the next lease starts a fresh browser. One pool serves every run of a
// verb: a whole sweep or conformance run pays the browser start once per concurrent job and
// bundle.
//
// Page affinity: acquire() prefers an idle host whose page already holds the wanted bundle, and
// starts another browser (up to max_hosts) rather than navigate a host away from its bundle.
// Switching bundles in one page is what made runs stall: each switch loads and compiles a
// 10-20 MiB onnxruntime-web wasm module again, and V8's background TurboFan tier-up of the
// module (in the new renderer and in the old one still winding down) filled both cores of a
// small machine for tens of seconds, starving the page's fetches (docs/browser.md, "Why runs
// stalled"). Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/browser/chromium_session.h"
#include "backend/browser/page_reply.h"
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
  LoadReply page_info;
  bool page_used = false;       // the tab has held a harness page (replaced, not reused, when it changes)
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

  // Browsers kept at once for affinity: one per onnxruntime-web bundle a run mixes (web-wasm,
  // web-jsep, web-webgpu). More concurrent leases than this still each get a browser.
  static constexpr int kDefaultMaxHosts = 3;
  explicit BrowserPool(int max_hosts = kDefaultMaxHosts) : max_hosts_(max_hosts < 1 ? 1 : max_hosts) {}

  // A host for `config`, in this order: an idle one whose page_key is `page_key`; an idle one
  // with a blank page (page_key ""); a new one while
  // fewer than max_hosts are alive; the idle one used longest ago (its page will navigate); a new
  // one when none is idle. Launch failures are Stage::create_env errors.
  Result<Lease> acquire(const BrowserConfig& config, const std::string& page_key, double timeout_s);

  int launched() const;  // browsers started so far
  int idle() const;

 private:
  void give_back(std::unique_ptr<BrowserHost> host);
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<BrowserHost>> idle_;  // least recently returned first
  int max_hosts_;
  int launched_ = 0;
  int leased_ = 0;
};

}  // namespace parity::backend::browser
