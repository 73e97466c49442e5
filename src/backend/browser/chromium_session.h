// backend/browser/chromium_session.h: one headless Chromium driven over raw CDP on
// --remote-debugging-pipe (commands on the child's fd 3, replies on its fd 4, '\0'-terminated
// JSON), with one page attached through a flattened session.
//
// RAII: the destructor kills Chromium's process group, reaps it and removes the temporary
// profile directory. Errors are parity::Error values with backend "browser": Stage::create_env
// while launching, Stage::run for evaluate; kinds unavailable (no chromium binary), timeout,
// crashed (browser or page died), interrupted (Ctrl-C, see core/interrupt.h) and error otherwise.
#pragma once

#include <sys/types.h>

#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/browser/stall_watch.h"
#include "core/child_process.h"
#include "core/scratch_dir.h"
#include "parity/result.h"

namespace parity::backend::browser {

inline constexpr const char* kDefaultChromium = "/usr/lib/chromium/chromium";

struct ChromiumOptions {
  std::string executable = kDefaultChromium;
  // Page to open; empty: a blank file:// page in the session's temporary folder, which (unlike
  // about:blank and data: URLs) is a secure context, so navigator.gpu exists.
  std::string url;
  double launch_timeout_s = 20.0;       // browser start, target creation and first navigation
  std::vector<std::string> extra_args;  // appended after the built-in flags
};

class ChromiumSession {
 public:
  static Result<std::unique_ptr<ChromiumSession>> launch(const ChromiumOptions& options = {});

  ChromiumSession(const ChromiumSession&) = delete;
  ChromiumSession& operator=(const ChromiumSession&) = delete;
  ~ChromiumSession();

  // Sends one CDP command (on the page session unless `browser_level`) and waits for the reply
  // with the same id; returns its "result" object. A CDP "error" reply is ErrorKind::error.
  Result<nlohmann::json> command(const std::string& method, const nlohmann::json& params, double timeout_s,
                                 Stage stage = Stage::run, bool browser_level = false);

  // Navigates the page and waits for Page.loadEventFired (with `watch`, see evaluate()).
  Status navigate(const std::string& url, double timeout_s, Stage stage = Stage::run,
                  const StallWatchConfig* watch = nullptr);
  // Closes the page and opens a new one in its own tab (on the blank page). A new tab gets a new
  // renderer process, so nothing of the old page survives: navigating within a tab kept the
  // renderer, whose teardown of the old onnxruntime-web instance (gigabytes of wasm and GPU
  // memory) then ran for tens of seconds beside the new page (docs/browser.md).
  Status replace_page(double timeout_s, Stage stage = Stage::run);
  // The blank secure page the session starts on (file:// in profile_dir()).
  std::string blank_url() const { return "file://" + profile_dir_.str() + "/blank.html"; }

  // Runtime.evaluate with awaitPromise and returnByValue; the value of the expression (top-level
  // await is allowed). A thrown exception is ErrorKind::error with its description.
  // With `watch`, a page that stalls (stall_watch.h) ends the wait early as ErrorKind::timeout,
  // and last_stall() says how; without, only the deadline does.
  Result<nlohmann::json> evaluate(const std::string& expression, double timeout_s,
                                  const StallWatchConfig* watch = nullptr);
  // The stall that ended the last watched evaluate, if one did.
  const std::optional<Stall>& last_stall() const { return last_stall_; }
  // Heartbeats received from the page (the parityBeat binding), and the step the newest named.
  int beats() const { return beats_; }
  const std::string& beat_step() const { return beat_step_; }

  // Console lines (Runtime.consoleAPICalled as "<type>: <args joined by spaces>", and the
  // browser's own Log.entryAdded, e.g. uncaptured WebGPU validation errors, as "<level>: <text>"),
  // the newest kConsoleKeep of them.
  const std::deque<std::string>& console_messages() const { return console_; }
  // Lines ever received (a mark for console_since), and those received after `mark`.
  std::size_t console_count() const { return console_total_; }
  std::vector<std::string> console_since(std::size_t mark) const;
  static constexpr std::size_t kConsoleKeep = 2000;
  // The tail of Chromium's own stderr (for error reports), and its lines that are not the noise
  // of every headless start (D-Bus, crashpad), the newest `max_lines`.
  const std::string& browser_log() const { return log_tail_; }
  std::string meaningful_log(std::size_t max_lines) const;

  pid_t pid() const { return child_.pid(); }
  // The session's temporary folder (profile in "profile/", blank page "blank.html"); removed by
  // the destructor.
  std::string profile_dir() const { return profile_dir_.str(); }

 private:
  ChromiumSession(ChildProcess child, ScratchDir profile_dir);
  Status open_page(double timeout_s, Stage stage);  // a new tab, attached and set up; closes the old
  Result<nlohmann::json> send_and_wait(const std::string& method, const nlohmann::json& params,
                                       const std::string& session, double timeout_s, Stage stage,
                                       const StallWatchConfig* watch = nullptr);
  // Reads and dispatches messages until `done` accepts one, the deadline passes or (with
  // `watch`) the page stalls.
  template <class Pred>
  Result<nlohmann::json> pump(Pred done, double timeout_s, Stage stage, const std::string& what,
                              const StallWatchConfig* watch = nullptr);
  void handle_event(const nlohmann::json& message);
  Error fail(ErrorKind kind, Stage stage, std::string message) const;
  // A CDP message whose JSON was not of the types the protocol promises.
  Error unreadable(Stage stage, const std::string& message, const std::exception& e) const;
  void drain_log();

  ChildProcess child_;
  ScratchDir profile_dir_;  // removed with everything Chromium wrote, after the destructor killed it
  std::string session_id_;
  std::string target_id_;
  std::string inbox_;
  std::string log_tail_;
  std::deque<std::string> console_;
  std::size_t console_total_ = 0;
  bool page_crashed_ = false;
  bool browser_gone_ = false;
  int next_id_ = 1;
  int beats_ = 0;
  double last_beat_s_ = -1;  // steady-clock seconds of the newest heartbeat; -1: none yet
  std::string beat_step_;
  std::optional<Stall> last_stall_;
};

}  // namespace parity::backend::browser
