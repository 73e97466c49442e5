#include "backend/browser/browser_pool.h"

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

Result<BrowserPool::Lease> BrowserPool::acquire(const BrowserConfig& config, double timeout_s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      if ((*it)->config() == config) {
        std::unique_ptr<BrowserHost> host = std::move(*it);
        idle_.erase(it);
        return Lease(this, std::move(host), true);
      }
    }
  }
  PARITY_ASSIGN_OR_RETURN(host, BrowserHost::launch(config, timeout_s));
  std::lock_guard<std::mutex> lock(mu_);
  ++launched_;
  return Lease(this, std::move(host), false);
}

void BrowserPool::give_back(std::unique_ptr<BrowserHost> host) {
  if (host->broken) return;  // destroyed here: Chromium killed, profile removed
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(host));
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
