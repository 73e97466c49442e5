// backend/browser/web_backend.h: the browser backends, web-wasm, web-jsep and web-webgpu:
// onnxruntime-web in headless Chromium, driven over CDP, with tensors crossing as raw bytes
// through the host's WebServer.
//
// One run: lease a browser from the pool (started once, reused), load the harness page with the
// path's bundle if the page does not have it yet, check the WebGPU adapter (and refuse fp16
// models on one without shader-f16), create an InferenceSession from the model's bytes, run it,
// download the outputs, release the session. Every failure is a parity::Error with this
// backend's label and the stage it happened in. A page that stalls (stall_watch.h: idle browser,
// with or without heartbeat) fails within StallWatchConfig::window_s and is replaced by a blank
// page, the browser kept; a timeout, a renderer crash, an interruption or a page that cannot be
// replaced marks the browser broken, so it is killed and the next run starts a fresh one. The
// error's message says which of the two happened.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/browser/browser_pool.h"
#include "backend/browser/ort_web_dist.h"
#include "backend/browser/page_reply.h"
#include "backend/test_fault.h"

namespace parity::backend::browser {

struct WebRunControl {
  double timeout_s = 600;               // whole run, browser start to outputs
  StallWatchConfig stall;               // when an idle page counts as stalled, long before timeout_s
  std::optional<TestFault> test_fault;  // PARITY_TEST_FAULT for this backend, done in the page
};

// The outputs a page POSTed to an upload slot (`uploaded`, by index into `outputs`) as tensors.
// Errors name `label` at Stage::read_output: a type Parity cannot read back, a missing upload, a
// buffer that does not match its dims.
Result<std::vector<NamedTensor>> uploaded_tensors(const std::string& label,
                                                  const std::vector<OutputInfo>& outputs,
                                                  const std::map<int, std::string>& uploaded);

class WebBackend final : public Backend {
 public:
  // `pool` must outlive the backend. spec.ep must name a web path (see web_path_for()).
  WebBackend(BackendSpec spec, WebPathInfo path, BrowserPool& pool, WebRunControl control);
  ~WebBackend() override;

  const BackendSpec& spec() const override { return spec_; }
  Result<RunResult> run(const RunRequest& request, const StageObserver& observe) override;

  // What the last run left for a report: the page's console lines, ORT's newest log lines and
  // Chromium's own stderr tail (the browser equivalent of a worker's log).
  const std::string& log() const { return log_; }
  // The last run's one-time setup (RunResult::setup_ms), also when that run failed.
  double last_setup_ms() const { return last_setup_ms_; }

 private:
  Result<RunResult> run_leased(BrowserHost& host, const RunRequest& request, const StageObserver& observe,
                               RunResult& result);
  // run_leased's stages, in order. Each fills `result` as it goes and returns an Error with this
  // backend's label; the caller has entered the stage already.
  // The chosen onnxruntime-web, checked to hold this path's bundle.
  Result<OrtWebDist> locate_bundle() const;
  // Gives `host` a page holding the bundle: the one it has when that matches (page.reused), else a
  // fresh harness page, loaded and settled (its time goes to result.setup_ms).
  Status load_page(BrowserHost& host, const RunRequest& request, const OrtWebDist& dist, RunResult& result);
  // Replaces a used page and navigates to the harness; a lost page goes through after_lost_page.
  Status open_harness(BrowserHost& host);
  void record_page(const LoadReply& page, const OrtWebDist& dist, RunResult& result) const;
  // The WebGPU adapter, recorded in `result`; refuses a float16 model on one without shader-f16.
  Status check_adapter(BrowserHost& host, const RunRequest& request, RunResult& result);
  Result<CreateReply> create_session(BrowserHost& host, const RunRequest& request, RunResult& result);
  // The options object of the page's create(), as onnxruntime-web's InferenceSession takes it.
  nlohmann::json session_options() const;
  void record_placement(const CreateReply& created, RunResult& result) const;
  // Runs the session; `uploaded` receives the outputs the page POSTed back, by output index.
  // `outputs`: how many the graph has (the page uploads each requested one, all when none are).
  Result<RunReply> run_session(BrowserHost& host, const RunRequest& request, std::size_t outputs,
                               std::map<int, std::string>& uploaded, RunResult& result);
  // Publishes each input's bytes on `server` (URLs appended to `published`, all withdrawn again if
  // one input cannot be sent) and returns the page's list of them.
  Result<nlohmann::json> publish_inputs(WebServer& server, const RunRequest& request,
                                        std::vector<std::string>& published) const;
  Result<nlohmann::json> call(BrowserHost& host, const std::string& function, const nlohmann::json& args,
                              Stage stage);
  // call() and then `decode` (page_reply.h) on its body; a malformed body, like a malformed
  // envelope, names this backend and costs the page its next run.
  template <class Reply>
  Result<Reply> ask(BrowserHost& host, const std::string& function, const nlohmann::json& args, Stage stage,
                    Result<Reply> (*decode)(const nlohmann::json&, Stage));
  void collect_log(BrowserHost& host, std::size_t console_mark, bool failed);
  // For a timeout, crash or interruption from the page: replaces the page (a stall) or marks the
  // browser broken, and says so in `e`.
  Error after_lost_page(BrowserHost& host, Error e);
  // Waits for a freshly loaded page's background compilation to quiet down; seconds waited.
  double settle_page(BrowserHost& host);
  double seconds_left() const;
  std::string log_level_name() const;
  std::string page_key() const;
  nlohmann::json fault_for(Stage stage) const;
  void crash_if_asked(BrowserHost& host, Stage stage);

  BackendSpec spec_;
  WebPathInfo path_;
  BrowserPool& pool_;
  WebRunControl control_;
  std::unique_ptr<BrowserPool> owned_pool_;
  double deadline_ = 0;  // steady-clock seconds
  double last_setup_ms_ = 0;
  std::string log_;

  friend Result<std::unique_ptr<Backend>> make_standalone_web_backend(const BackendSpec& spec);
};

// A web backend on `pool`; unavailable/bad_input Errors for a non-web EP or a fault the browser
// cannot perform.
Result<std::unique_ptr<WebBackend>> make_web_backend(const BackendSpec& spec, BrowserPool& pool,
                                                     WebRunControl control);

// The registry's form (create_backend): a backend with a private pool and the test fault from
// PARITY_TEST_FAULT, for callers outside a BackendRunner.
Result<std::unique_ptr<Backend>> make_standalone_web_backend(const BackendSpec& spec);

}  // namespace parity::backend::browser
