#include "backend/browser/browser_pool.h"

#include <algorithm>
#include <utility>

namespace parity::backend::browser {

Result<std::unique_ptr<BrowserHost>> BrowserHost::launch(const BrowserConfig& config, double timeout_s) {
  std::unique_ptr<BrowserHost> host(new BrowserHost());
  host->config_ = config;
  PARITY_ASSIGN_OR_RETURN(server, WebServer::start());
  host->server_ = std::move(server);
  ChromiumOptions options;
  options.executable = config.executable.empty() ? kDefaultChromium : config.executable;
  options.extra_args = config.extra_args;
  options.launch_timeout_s = timeout_s;
  // The first page is the harness, so the browser's first navigation already warms the origin.
  options.url = host->server_->harness_url();
  PARITY_ASSIGN_OR_RETURN(chromium, ChromiumSession::launch(options));
  host->chromium_ = std::move(chromium);
  return host;
}

BrowserPool::Lease::Lease(BrowserPool* pool, std::unique_ptr<BrowserHost> host, bool reused)
    : pool_(pool), host_(std::move(host)), reused_(reused) {}

BrowserPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), host_(std::move(other.host_)), reused_(other.reused_) {}

BrowserPool::Lease::~Lease() {
  if (pool_ && host_) pool_->give_back(std::move(host_));
}

Result<BrowserPool::Lease> BrowserPool::acquire(const BrowserConfig& config, const std::string& page_key,
                                                double timeout_s) {
  std::unique_ptr<BrowserHost> evicted;  // destroyed outside the lock (killing Chromium takes a while)
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto take = [&](auto it) {
      std::unique_ptr<BrowserHost> host = std::move(*it);
      idle_.erase(it);
      ++leased_;
      return Lease(this, std::move(host), true);
    };
    auto same = [&](const auto& h) { return h->config() == config && h->page_key == page_key; };
    if (auto it = std::find_if(idle_.begin(), idle_.end(), same); it != idle_.end()) return take(it);
    // A host whose page holds nothing (a replaced stalled page) costs a page load either way.
    auto blank = [&](const auto& h) { return h->config() == config && h->page_key.empty(); };
    if (auto it = std::find_if(idle_.begin(), idle_.end(), blank); it != idle_.end()) return take(it);
    const int alive = leased_ + static_cast<int>(idle_.size());
    if (alive >= max_hosts_) {
      auto fits = [&](const auto& h) { return h->config() == config; };
      if (auto it = std::find_if(idle_.begin(), idle_.end(), fits); it != idle_.end()) return take(it);
      // Every idle host has another config: the oldest makes room for this one.
      if (!idle_.empty()) {
        evicted = std::move(idle_.front());
        idle_.erase(idle_.begin());
      }
    }
    ++leased_;  // counted before the launch so concurrent acquires see it
  }
  evicted.reset();
  auto host = BrowserHost::launch(config, timeout_s);
  std::lock_guard<std::mutex> lock(mu_);
  if (!host.ok()) {
    --leased_;
    return host.error();
  }
  ++launched_;
  return Lease(this, std::move(*host), false);
}

void BrowserPool::give_back(std::unique_ptr<BrowserHost> host) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --leased_;
    if (!host->broken) {
      idle_.push_back(std::move(host));
      return;
    }
  }
  host.reset();  // broken: destroyed here, outside the lock (Chromium killed, profile removed)
}

int BrowserPool::launched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return launched_;
}

int BrowserPool::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(idle_.size());
}

}  // namespace parity::backend::browser
