#include "backend/browser/chromium_session.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>

#include "backend/browser/browser_trace.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/process_group_cpu.h"

namespace parity::backend::browser {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::size_t kLogTailBytes = 4096;
// Chromium binds its singleton socket at "$TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket"
// (46 characters past TMPDIR, which Parity points at the profile folder); the kernel caps a socket
// path at 107, so a longer TMPDIR made every browser row 'crashed'. The profile folder is kept short
// whatever TMPDIR is (scratch_dir.h).
constexpr std::size_t kMaxProfileDirChars = 107 - 46;
constexpr const char* kBeatBinding = "parityBeat";  // harness.mjs calls it every second
constexpr double kWatchSampleS = 1.0;               // how often a watched wait samples the browser's CPU

double steady_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

Error browser_error(ErrorKind kind, Stage stage, std::string message, std::string hint = {}) {
  Error e = make_error(kind, stage, std::move(message), std::move(hint));
  e.backend = "browser";
  return e;
}

std::string console_text(const json& params) {
  std::string text = params.value("type", "log") + ":";
  if (auto it = params.find("args"); it != params.end() && it->is_array()) {
    for (const auto& arg : *it) {
      text += ' ';
      if (arg.contains("value")) {
        const auto& v = arg["value"];
        text += v.is_string() ? v.get<std::string>() : v.dump();
      } else {
        text += arg.value("description", arg.value("type", std::string("?")));
      }
    }
  }
  return text;
}

// One line per CDP message for the trace: the reply's id or the event's name, and its start.
std::string trace_text(const json& message) {
  std::string text = message.contains("id") ? "reply " + message["id"].dump() : message.value("method", "?");
  const std::string body = message.dump();
  return text + " " + body.substr(0, 200);
}

}  // namespace

Result<std::unique_ptr<ChromiumSession>> ChromiumSession::launch(const ChromiumOptions& options) {
  if (::access(options.executable.c_str(), X_OK) != 0)
    return browser_error(ErrorKind::unavailable, Stage::create_env,
                         "chromium not found at " + options.executable,
                         "install Debian's chromium package (apt-get install chromium)");

  // Orphans of Chromium (its helpers, once it is killed) come to Parity, which reaps them in the
  // destructor; only Chromium's own group is waited for there, so other children are untouched.
  static const bool subreaper = ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
  (void)subreaper;
  auto profile = ScratchDir::create("parity-chromium", Stage::create_env, kMaxProfileDirChars);
  Status blank = profile.ok()
                     ? write_text_file(*profile / "blank.html", "<!doctype html><title>parity</title>\n")
                     : Status(profile.error());
  if (!blank.ok()) {
    Error e = blank.error();
    e.backend = "browser";
    e.stage = Stage::create_env;
    return e;
  }
  const std::string tmpl = profile->str();

  SpawnOptions spawn;
  spawn.exe = options.executable;
  // Chromium keeps its own temp folders (org.chromium.Chromium.XXXXXX) beside the profile and
  // leaves them when it is killed: they go into the profile folder, which Parity removes.
  spawn.env_set.emplace_back("TMPDIR", tmpl);
  spawn.args = {"--headless=new",
                "--no-sandbox",
                "--enable-unsafe-webgpu",
                "--user-data-dir=" + tmpl + "/profile",
                "--remote-debugging-pipe",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-quic",
                "--mute-audio"};
  spawn.args.insert(spawn.args.end(), options.extra_args.begin(), options.extra_args.end());
  spawn.args.push_back("about:blank");
  auto child = ChildProcess::spawn(spawn);
  if (!child.ok()) {
    Error e = child.error();
    e.backend = "browser";
    e.stage = Stage::create_env;
    return e;
  }
  std::unique_ptr<ChromiumSession> s(
      new ChromiumSession(std::move(child).value(), std::move(profile).value()));

  const double t = options.launch_timeout_s;
  if (auto opened = s->open_page(t, Stage::create_env); !opened.ok()) return opened.error();
  if (auto nav = s->navigate(options.url.empty() ? s->blank_url() : options.url, t, Stage::create_env);
      !nav.ok())
    return nav.error();
  return s;
}

Status ChromiumSession::open_page(double timeout_s, Stage stage) {
  auto target = command("Target.createTarget", {{"url", "about:blank"}}, timeout_s, stage, true);
  if (!target.ok()) return target.error();
  const std::string target_id = target->value("targetId", "");
  auto attached =
      command("Target.attachToTarget", {{"targetId", target_id}, {"flatten", true}}, timeout_s, stage, true);
  if (!attached.ok()) return attached.error();
  const std::string session = attached->value("sessionId", "");
  if (session.empty()) return fail(ErrorKind::error, stage, "Target.attachToTarget returned no sessionId");
  const std::string old_target = target_id_;
  session_id_ = session;
  target_id_ = target_id;
  page_crashed_ = false;
  for (const char* domain : {"Page.enable", "Runtime.enable", "Inspector.enable", "Log.enable"}) {
    auto r = command(domain, json::object(), timeout_s, stage);
    if (!r.ok()) return r.error();
  }
  // The page's heartbeat: a binding on every context the page will have, navigations included.
  if (auto r = command("Runtime.addBinding", {{"name", kBeatBinding}}, timeout_s, stage); !r.ok())
    return r.error();
  if (!old_target.empty())
    if (auto r = command("Target.closeTarget", {{"targetId", old_target}}, timeout_s, stage, true); !r.ok())
      return r.error();
  return ok_status();
}

Status ChromiumSession::replace_page(double timeout_s, Stage stage) {
  if (auto opened = open_page(timeout_s, stage); !opened.ok()) return opened;
  return navigate(blank_url(), timeout_s, stage);
}

ChromiumSession::ChromiumSession(ChildProcess child, ScratchDir profile_dir)
    : child_(std::move(child)), profile_dir_(std::move(profile_dir)) {}

namespace {

// Every descendant of `pid` now (its threads' /proc children lists, recursively): Chromium's
// helpers, some of which leave its process group (the zygote and its renderers).
std::vector<pid_t> descendants_of(pid_t pid) {
  std::vector<pid_t> out;
  std::vector<pid_t> todo{pid};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(p) + "/task", ec)) {
      std::ifstream children(task.path() / "children");
      for (long c = 0; children >> c;) {
        out.push_back(static_cast<pid_t>(c));
        todo.push_back(static_cast<pid_t>(c));
      }
    }
  }
  return out;
}

// This process's own children now.
std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream children(task.path() / "children");
    for (long c = 0; children >> c;) out.push_back(static_cast<pid_t>(c));
  }
  return out;
}

}  // namespace

ChromiumSession::~ChromiumSession() {
  const pid_t browser = child_.pid();
  std::vector<pid_t> helpers = browser > 0 ? descendants_of(browser) : std::vector<pid_t>{};
  // Crashpad's handlers daemonize (double fork): they left Chromium's tree at launch and are children
  // of Parity already. They are the children of ours that run a program from Chromium's own folder.
  std::error_code ec;
  const auto folder =
      std::filesystem::read_symlink("/proc/" + std::to_string(browser) + "/exe", ec).parent_path();
  if (!ec && !folder.empty())
    for (const pid_t c : children_of_this_process()) {
      std::error_code exe_ec;
      const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(c) + "/exe", exe_ec);
      if (!exe_ec && exe.parent_path() == folder && c != browser) helpers.push_back(c);
    }
  child_.kill_group(SIGKILL);
  for (const pid_t h : helpers) ::kill(h, SIGKILL);  // those outside the group too
  child_.wait();  // before profile_dir_ goes: Chromium writes into it until it is dead
  // Chromium's helpers (zygote, renderer, GPU process) became ours when their parent died (launch()
  // makes Parity a child subreaper), so they are reaped here, now, instead of lingering as zombies
  // (about 2 s until init got round to them). Only these pids: a wait for any child would take a
  // worker's exit status from the thread that waits for it. A helper whose own parent (the zygote)
  // is not yet dead is not ours yet: it is waited for again, for at most a second.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (const pid_t h : helpers)
    for (;;) {
      const pid_t r = ::waitpid(h, nullptr, WNOHANG);
      if (r == h || (r < 0 && errno != ECHILD && errno != EINTR)) break;
      if (r < 0 && errno == ECHILD && (::kill(h, 0) != 0 || std::chrono::steady_clock::now() > until)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

std::vector<std::string> ChromiumSession::console_since(std::size_t mark) const {
  const std::size_t first = console_total_ - console_.size();  // total count of the oldest kept line
  std::vector<std::string> out;
  for (std::size_t i = std::max(mark, first); i < console_total_; ++i) out.push_back(console_[i - first]);
  return out;
}

// Chromium's stderr without the lines every headless start prints on a machine without a desktop
// session (D-Bus, crashpad, XDG), the newest `max_lines` of them.
std::string ChromiumSession::meaningful_log(std::size_t max_lines) const {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < log_tail_.size()) {
    std::size_t end = log_tail_.find('\n', pos);
    if (end == std::string::npos) end = log_tail_.size();
    std::string line = log_tail_.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    bool noise = false;
    for (const char* n :
         {"dbus", "crashpad", "XDG_RUNTIME_DIR", "DevTools listening", "examples of valid types"})
      noise = noise || line.find(n) != std::string::npos;
    if (!noise) lines.push_back(std::move(line));
  }
  std::string out;
  for (std::size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size(); ++i)
    out += lines[i] + "\n";
  return out;
}

Error ChromiumSession::fail(ErrorKind kind, Stage stage, std::string message) const {
  if (kind == ErrorKind::crashed)
    if (const std::string log = meaningful_log(10); !log.empty())
      message += "; chromium's last log lines:\n" + log;
  return browser_error(kind, stage, std::move(message));
}

void ChromiumSession::drain_log() {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(child_.log_fd(), buf, sizeof buf);
    if (n <= 0) break;
    log_tail_.append(buf, static_cast<std::size_t>(n));
  }
  if (log_tail_.size() > kLogTailBytes) log_tail_.erase(0, log_tail_.size() - kLogTailBytes);
}

void ChromiumSession::handle_event(const json& message) {
  const std::string method = message.value("method", "");
  auto keep = [this](std::string line) {
    console_.push_back(std::move(line));
    ++console_total_;
    if (console_.size() > kConsoleKeep) console_.pop_front();
  };
  if (method == "Runtime.consoleAPICalled") {
    keep(console_text(message.value("params", json::object())));
  } else if (method == "Log.entryAdded") {
    const json entry = message.value("params", json::object()).value("entry", json::object());
    keep(entry.value("level", "log") + ": " + entry.value("text", ""));
  } else if (method == "Runtime.bindingCalled") {
    const json params = message.value("params", json::object());
    if (params.value("name", "") == kBeatBinding) {
      ++beats_;
      last_beat_s_ = steady_s();
      beat_step_ = params.value("payload", "");
    }
  } else if (method == "Inspector.targetCrashed" || (method == "Target.targetCrashed")) {
    page_crashed_ = true;
  } else if (method == "Target.detachedFromTarget" &&
             message.value("params", json::object()).value("sessionId", "") == session_id_) {
    page_crashed_ = true;
  }
}

template <class Pred>
Result<json> ChromiumSession::pump(Pred done, double timeout_s, Stage stage, const std::string& what,
                                   const StallWatchConfig* watch) {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::optional<StallWatch> stall_watch;
  std::optional<ProcessGroupCpu> browser_cpu;
  double next_sample_s = 0;
  if (watch) {
    stall_watch.emplace(*watch);
    browser_cpu.emplace(child_.pid());
    last_stall_.reset();
  }
  for (;;) {
    // Dispatch every complete message already buffered.
    for (std::size_t end; (end = inbox_.find('\0')) != std::string::npos;) {
      std::string raw = inbox_.substr(0, end);
      inbox_.erase(0, end + 1);
      json message = json::parse(raw, nullptr, false);
      if (message.is_discarded()) continue;
      if (trace_enabled()) trace("cdp<", trace_text(message));
      try {  // the one place CDP JSON is read by type: a surprise is an error value, not an abort
        handle_event(message);
        if (done(message)) return message;
      } catch (const json::exception& e) {
        return unreadable(stage, raw, e);
      }
    }
    if (page_crashed_) return fail(ErrorKind::crashed, stage, "the page crashed during " + what);
    if (interrupted()) return fail(ErrorKind::interrupted, stage, "interrupted during " + what);
    if (browser_gone_) return fail(ErrorKind::crashed, stage, "chromium exited during " + what);
    if (stall_watch && steady_s() >= next_sample_s) {
      const double now = steady_s();
      next_sample_s = now + kWatchSampleS;
      if (auto stall = stall_watch->observe(now, browser_cpu->sample(), last_beat_s_, beat_step_)) {
        last_stall_ = *stall;
        if (trace_enabled()) trace("stall", stall->describe());
        return fail(ErrorKind::timeout, stage, what + ": " + stall->describe());
      }
    }

    const auto now = Clock::now();
    if (now >= deadline)
      return fail(ErrorKind::timeout, stage,
                  what + " did not finish within " + std::to_string(timeout_s) + " s");
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd fds[2] = {{child_.reply_fd(), POLLIN, 0}, {child_.log_fd(), POLLIN, 0}};
    int r = ::poll(fds, 2, static_cast<int>(std::min<long long>(left + 1, 100)));
    if (r < 0 && errno != EINTR)
      return fail(ErrorKind::error, stage, std::string("poll: ") + std::strerror(errno));
    drain_log();
    if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      char buf[65536];
      for (;;) {
        ssize_t n = ::read(child_.reply_fd(), buf, sizeof buf);
        if (n > 0) {
          inbox_.append(buf, static_cast<std::size_t>(n));
          continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) browser_gone_ = true;
        break;
      }
    }
    if (!browser_gone_ && child_.try_wait().has_value()) browser_gone_ = true;
  }
}

Result<json> ChromiumSession::send_and_wait(const std::string& method, const json& params,
                                            const std::string& session, double timeout_s, Stage stage,
                                            const StallWatchConfig* watch) {
  const int id = next_id_++;
  json message = {{"id", id}, {"method", method}, {"params", params}};
  if (!session.empty()) message["sessionId"] = session;
  std::string wire = message.dump();
  if (trace_enabled()) trace("cdp>", std::to_string(id) + " " + method + " " + wire.substr(0, 160));
  wire.push_back('\0');
  for (std::size_t sent = 0; sent < wire.size();) {
    ssize_t n = ::send(child_.request_fd(), wire.data() + sent, wire.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(ErrorKind::crashed, stage, "chromium closed its command pipe (" + method + ")");
    sent += static_cast<std::size_t>(n);
  }
  auto reply = pump([id](const json& m) { return m.contains("id") && m["id"] == id; }, timeout_s, stage,
                    method, watch);
  if (!reply.ok()) return reply.error();
  try {
    if (reply->contains("error")) {
      const json& err = (*reply)["error"];
      return fail(ErrorKind::error, stage, method + ": " + err.value("message", err.dump()));
    }
    return reply->value("result", json::object());
  } catch (const json::exception& e) {
    return unreadable(stage, reply->dump(), e);
  }
}

Result<json> ChromiumSession::command(const std::string& method, const json& params, double timeout_s,
                                      Stage stage, bool browser_level) {
  return send_and_wait(method, params, browser_level ? std::string() : session_id_, timeout_s, stage);
}

Status ChromiumSession::navigate(const std::string& url, double timeout_s, Stage stage,
                                 const StallWatchConfig* watch) {
  const auto start = Clock::now();
  auto r = command("Page.navigate", {{"url", url}}, timeout_s, stage);
  if (!r.ok()) return r.error();
  if (r->contains("errorText"))
    return fail(ErrorKind::error, stage, "navigation to " + url + " failed: " + (*r)["errorText"].dump());
  const double left = timeout_s - std::chrono::duration<double>(Clock::now() - start).count();
  const std::string session = session_id_;
  auto loaded = pump(
      [&session](const json& m) {
        return m.value("method", "") == "Page.loadEventFired" && m.value("sessionId", "") == session;
      },
      left > 0 ? left : 0.0, stage, "page load", watch);
  if (!loaded.ok()) return loaded.error();
  return ok_status();
}

Result<json> ChromiumSession::evaluate(const std::string& expression, double timeout_s,
                                       const StallWatchConfig* watch) {
  // replMode allows top-level await, but wraps the completion value, so a promise that is the
  // value of the expression is not awaited there: the result object is awaited and serialised by
  // a second call on the same deadline.
  const auto start = Clock::now();
  auto r = send_and_wait("Runtime.evaluate",
                         {{"expression", expression}, {"awaitPromise", true}, {"replMode", true}},
                         session_id_, timeout_s, Stage::run, watch);
  auto threw = [this](const json& reply) -> std::optional<Error> {
    if (!reply.contains("exceptionDetails")) return std::nullopt;
    const json& ex = reply["exceptionDetails"];
    std::string text = ex.value("text", "exception");
    if (ex.contains("exception") && ex["exception"].is_object())
      text = ex["exception"].value("description", text);
    return fail(ErrorKind::error, Stage::run, "evaluate threw: " + text);
  };
  try {
    if (!r.ok()) return r.error();
    if (auto e = threw(*r)) return *e;
    json result = r->value("result", json::object());
    if (result.contains("objectId")) {
      const double left = timeout_s - std::chrono::duration<double>(Clock::now() - start).count();
      r = send_and_wait("Runtime.callFunctionOn",
                        {{"objectId", result["objectId"]},
                         {"functionDeclaration", "async function() { return await this; }"},
                         {"awaitPromise", true},
                         {"returnByValue", true}},
                        session_id_, left > 0 ? left : 0.0, Stage::run, watch);
      if (!r.ok()) return r.error();
      if (auto e = threw(*r)) return *e;
      result = r->value("result", json::object());
    }
    return result.contains("value") ? result["value"] : json();
  } catch (const json::exception& e) {
    return unreadable(Stage::run, r.ok() ? r->dump() : std::string(), e);
  }
}

Error ChromiumSession::unreadable(Stage stage, const std::string& message, const std::exception& e) const {
  return fail(ErrorKind::internal, stage,
              std::string("chromium sent a DevTools message Parity cannot read (") + e.what() +
                  "): " + message.substr(0, 200));
}

}  // namespace parity::backend::browser
