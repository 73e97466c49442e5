#include "backend/browser/web_backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>

#include "backend/browser/browser_trace.h"
#include "backend/browser/page_reply.h"
#include "backend/browser/web_errors.h"
#include "core/process_group_cpu.h"
#include "core/text.h"
#include "model/external_data.h"
#include "model/onnx_model.h"
#include "model/smoke_model.h"

namespace parity::backend::browser {
namespace {

constexpr double kReplacePageS = 5.0;   // how long a stalled page's replacement may take
constexpr double kSettleWindowS = 1.0;  // a loaded page is quiet after this long ...
constexpr double kSettleShare = 0.25;   // ... under this share of one core
constexpr double kSettleMaxS = 30.0;    // and is used anyway after this long

using nlohmann::json;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Error web_error(const std::string& label, ErrorKind kind, Stage stage, std::string message,
                std::string hint) {
  Error e = make_error(kind, stage, std::move(message), std::move(hint));
  e.backend = label;
  return e;
}

// ORT's log level names (ort.env.logLevel) and the session option numbers they match.
int severity_of(const std::string& level) {
  if (level == "verbose") return 0;
  if (level == "info") return 1;
  if (level == "error") return 3;
  if (level == "fatal") return 4;
  return 2;  // warning
}

// Provider option values are strings on the command line; the page wants JSON types.
json option_value(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (!v.empty() && end && *end == '\0' && std::isfinite(d)) return d;
  return v;
}

std::string describe_adapter(const AdapterInfo& a) {
  std::string s = a.vendor;
  if (!a.architecture.empty()) s += (s.empty() ? "" : " ") + a.architecture;
  if (!a.description.empty()) s += " (" + a.description + ")";
  if (s.empty()) s = "unnamed adapter";
  std::vector<std::string> facts;
  if (a.is_fallback) facts.emplace_back("fallback adapter");
  facts.emplace_back(a.has_feature("shader-f16") ? "shader-f16" : "no shader-f16");
  if (a.max_buffer_size) {
    const double mib = *a.max_buffer_size / (1 << 20);
    facts.push_back("maxBufferSize " + std::to_string(static_cast<long long>(mib)) + " MiB");
  }
  std::string joined;
  for (const auto& f : facts) joined += (joined.empty() ? "" : ", ") + f;
  return s + " [" + joined + "]";
}

std::string join_strings(const std::vector<std::string>& list, const char* sep) {
  std::string out;
  for (const auto& v : list) out += (out.empty() ? "" : sep) + v;
  return out;
}

void record_adapter(const AdapterInfo& a, RunResult& result) {
  result.adapter = describe_adapter(a);
  result.properties.emplace_back("adapter.vendor", a.vendor);
  result.properties.emplace_back("adapter.architecture", a.architecture);
  result.properties.emplace_back("adapter.description", a.description);
  result.properties.emplace_back("adapter.is_fallback", a.is_fallback ? "yes" : "no");
  result.properties.emplace_back("adapter.features", join_strings(a.features, ","));
  for (const auto& [name, value] : a.limits) result.properties.emplace_back("adapter.limits." + name, value);
}

// The page's uploaded outputs as tensors in `result`; every name in `wanted` must be among them.
Status read_outputs(const std::string& label, const RunReply& ran, const std::map<int, std::string>& uploaded,
                    const std::vector<std::string>& wanted, RunResult& result) {
  PARITY_ASSIGN_OR_RETURN(outputs, uploaded_tensors(label, ran.outputs, uploaded));
  result.outputs = std::move(outputs);
  for (const auto& name : wanted)
    if (std::none_of(result.outputs.begin(), result.outputs.end(),
                     [&](const auto& t) { return t.name == name; }))
      return web_error(label, ErrorKind::error, Stage::read_output,
                       "onnxruntime-web returned no tensor for output '" + name + "'",
                       "session.run() resolved without every requested output");
  return ok_status();
}

}  // namespace

Result<std::vector<NamedTensor>> uploaded_tensors(const std::string& label,
                                                  const std::vector<OutputInfo>& outputs,
                                                  const std::map<int, std::string>& uploaded) {
  std::vector<NamedTensor> tensors;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputInfo& o = outputs[i];
    const std::string& name = o.name;
    const auto dtype = dtype_from_name(o.type);
    if (!dtype || !ort_web_takes(*dtype))
      return web_error(label, ErrorKind::unavailable, Stage::read_output,
                       "output '" + name + "' has type " + (o.type.empty() ? "?" : o.type) +
                           ", which Parity cannot read back from onnxruntime-web",
                       "use a native backend for this model");
    auto it = uploaded.find(static_cast<int>(i));
    if (it == uploaded.end())
      return web_error(label, ErrorKind::internal, Stage::read_output,
                       "output '" + name + "' was not uploaded by the page", "a bug in Parity's page script");
    Shape shape = o.dims;
    std::vector<std::byte> bytes(it->second.size());
    if (!bytes.empty()) std::memcpy(bytes.data(), it->second.data(), bytes.size());
    auto tensor = Tensor::from_bytes(*dtype, std::move(shape), std::move(bytes));
    if (!tensor.ok())
      return web_error(label, ErrorKind::error, Stage::read_output,
                       "output '" + name + "': " + tensor.error().message,
                       "onnxruntime-web returned a buffer that does not match the output's dims");
    tensors.push_back({name, std::move(tensor).value()});
  }
  return tensors;
}

WebBackend::WebBackend(BackendSpec spec, WebPathInfo path, BrowserPool& pool, WebRunControl control)
    : spec_(std::move(spec)), path_(path), pool_(pool), control_(std::move(control)) {
  if (spec_.label.empty()) spec_.label = spec_.ep;
}

WebBackend::~WebBackend() = default;

std::string WebBackend::log_level_name() const {
  return spec_.log_level.empty() ? "warning" : spec_.log_level;
}

// What a page must have loaded to serve this backend; the same on every host, so the pool can
// match a run to the browser whose page already holds its bundle.
std::string WebBackend::page_key() const {
  return spec_.ort_web + "|" + std::string(path_.bundle) +
         "|threads=" + std::to_string(spec_.intra_op_threads) + "|" + log_level_name();
}

double WebBackend::seconds_left() const { return std::max(0.05, deadline_ - now_s()); }

json WebBackend::fault_for(Stage stage) const {
  const auto& f = control_.test_fault;
  if (!f || f->stage != stage) return nullptr;
  switch (f->action) {
    case FaultAction::hang: return {{"stage", std::string(to_string(stage))}, {"action", "hang"}};
    case FaultAction::abort: return {{"stage", std::string(to_string(stage))}, {"action", "abort"}};
    case FaultAction::null_result: return {{"stage", std::string(to_string(stage))}, {"action", "null"}};
    case FaultAction::device_lost:
      return {{"stage", std::string(to_string(stage))}, {"action", "device-lost"}};
    case FaultAction::stall: return {{"stage", std::string(to_string(stage))}, {"action", "stall"}};
    default: return nullptr;
  }
}

void WebBackend::crash_if_asked(BrowserHost& host, Stage stage) {
  const auto& f = control_.test_fault;
  if (f && f->stage == stage && f->action == FaultAction::segv)
    (void)host.chromium().command("Page.crash", json::object(), 2.0, stage);  // no reply: it dies
}

Result<json> WebBackend::call(BrowserHost& host, const std::string& function, const json& args, Stage stage) {
  crash_if_asked(host, stage);
  auto r = host.chromium().evaluate("parity." + function + "(" + args.dump() + ")", seconds_left(),
                                    &control_.stall);
  if (!r.ok()) {
    Error e = r.error();
    e.backend = spec_.label;
    e.stage = stage;
    return after_lost_page(host, std::move(e));
  }
  auto failure = decode_envelope(function, *r, stage);
  if (!failure.ok()) {
    host.page_key.clear();  // a page that answers nonsense gets no further runs
    Error e = failure.error();
    e.backend = spec_.label;
    return e;
  }
  if (*failure) {
    Error e = classify_page_failure(spec_.label, stage, **failure);
    // Any failure in the page leaves onnxruntime-web suspect, so the next run gets a fresh page.
    // Measured: after one kernel error, JSEP refuses every later run in that page with 'kernel
    // "[Cast] " is not allowed to be called recursively' (its kernel stack was not unwound);
    // keeping the page turned 15 of 25 web-jsep cells flaky in the conformance re-check.
    host.page_key.clear();
    return e;
  }
  return r;
}

template <class Reply>
Result<Reply> WebBackend::ask(BrowserHost& host, const std::string& function, const json& args, Stage stage,
                              Result<Reply> (*decode)(const json&, Stage)) {
  PARITY_ASSIGN_OR_RETURN(body, call(host, function, args, stage));
  Result<Reply> reply = decode(body, stage);
  if (!reply.ok()) {
    host.page_key.clear();  // a page that answers nonsense gets no further runs
    reply.error().backend = spec_.label;
  }
  return reply;
}

Error WebBackend::after_lost_page(BrowserHost& host, Error e) {
  if (e.kind != ErrorKind::timeout && e.kind != ErrorKind::crashed && e.kind != ErrorKind::interrupted)
    return e;
  ChromiumSession& chromium = host.chromium();
  host.page_key.clear();
  // A stalled page is dropped, not the browser: a blank page frees what it held, and the next run
  // loads its bundle there. Only if even that does not answer is the browser given up.
  if (e.kind == ErrorKind::timeout && chromium.last_stall() && chromium.replace_page(kReplacePageS).ok()) {
    e.message += "; Parity replaced the page (the browser was kept)";
    e.hint = "the page stalled: it stayed idle for " + std::to_string(control_.stall.window_s) +
             " s without answering. A run that needs long idle waits (a slow remote GPU) can raise the "
             "stall window; otherwise this is a bug in onnxruntime-web or the browser worth a repro";
    return e;
  }
  host.broken = true;  // a hung or dead page cannot be trusted with another run
  e.message += "; Parity killed the browser (the next run starts a fresh one)";
  if (e.kind == ErrorKind::timeout)
    e.hint = chromium.last_stall()
                 ? "the page stalled and the browser did not answer a navigation either"
                 : "the page kept the browser busy past --timeout (" + std::to_string(control_.timeout_s) +
                       " s) without finishing; WebGPU on SwiftShader is 100x slower than a GPU";
  if (e.kind == ErrorKind::crashed)
    e.hint = "the page's renderer process died; Parity isolated it (the console tail is in the report)";
  return e;
}

// A freshly loaded page keeps compiling onnxruntime-web's wasm in the background (V8's
// tier-up) for seconds after load() returns; a run started then competes with it, and on a
// small machine its fetches starved behind the compile threads for tens of seconds
// (docs/browser.md, "Why runs stalled"). So a page counts as loaded once its browser is quiet:
// under kSettleShare of one core for kSettleWindowS, at most kSettleMaxS. Returns the seconds waited.
double WebBackend::settle_page(BrowserHost& host) {
  const double start = now_s();
  const double give_up = std::min(start + kSettleMaxS, deadline_ - 1);
  ProcessGroupCpu cpu(host.chromium().pid());
  double window_start = start, window_cpu = cpu.sample();
  while (now_s() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const double t = now_s(), used = cpu.sample();
    if (t - window_start >= kSettleWindowS) {
      if (used - window_cpu < kSettleShare * (t - window_start)) break;
      window_start = t;
      window_cpu = used;
    }
  }
  return now_s() - start;
}

void WebBackend::collect_log(BrowserHost& host, std::size_t console_mark, bool failed) {
  log_.clear();
  for (const auto& line : host.chromium().console_since(console_mark)) log_ += line + "\n";
  if (failed && !host.broken) {  // ORT's own lines only matter for a failure (one more round trip)
    auto diag = host.chromium().evaluate("parity.diagnostics()", 5.0);
    auto decoded =
        diag.ok() ? decode_diagnostics(*diag, Stage::read_output) : Result<DiagnosticsReply>(diag.error());
    if (decoded.ok() && !decoded->ort_log.empty())
      log_ += "--- onnxruntime-web log (newest) ---\n" + join_strings(decoded->ort_log, "\n") + "\n";
  }
  if (const std::string tail = host.chromium().meaningful_log(30); !tail.empty())
    log_ += "--- chromium stderr (tail) ---\n" + tail;
}

Result<RunResult> WebBackend::run(const RunRequest& request, const StageObserver& observe) {
  deadline_ = now_s() + control_.timeout_s;
  log_.clear();
  last_setup_ms_ = 0;
  Stage stage = Stage::create_env;
  auto enter = [&](Stage s) {
    stage = s;
    if (observe) observe(s);
  };

  enter(Stage::create_env);
  BrowserConfig config;
  if (!spec_.browser.empty()) config.executable = spec_.browser;
  config.extra_args = spec_.browser_args;
  const double acquire_s = now_s();
  auto lease = pool_.acquire(config, page_key(), seconds_left());
  if (!lease.ok()) {
    Error e = lease.error();
    e.backend = spec_.label;
    return e;
  }
  BrowserHost& host = **lease;
  ++host.runs;
  // The browser's CPU from the end of setup (the first stage after the page is ready) to the end.
  ProcessGroupCpu cpu(host.chromium().pid());
  cpu.sample();
  double cpu_at_run_start = -1;
  auto enter_and_time = [&](Stage s) {
    if (s == Stage::append_provider && cpu_at_run_start < 0) cpu_at_run_start = cpu.sample();
    enter(s);
  };
  const std::size_t mark = host.chromium().console_count();
  RunResult result;
  result.properties.emplace_back("browser.reused", lease->reused() ? "yes" : "no");
  if (!lease->reused()) result.setup_ms += (now_s() - acquire_s) * 1000;
  // Browser backends run in Parity's own process, so nothing they do may throw out of it: replies
  // are decoded by page_reply.h, and this is the net under everything else (an allocation for
  // an output the page claims, a library surprise), turned into an error row like any failure.
  Result<RunResult> r = Error{};
  try {
    r = run_leased(host, request, enter_and_time, result);
  } catch (const std::bad_alloc&) {
    host.page_key.clear();
    r = web_error(spec_.label, ErrorKind::oom, stage, "Parity ran out of memory handling the page's reply",
                  "an output larger than this machine's memory; run a smaller input");
  } catch (const std::exception& e) {
    host.page_key.clear();
    r = web_error(spec_.label, ErrorKind::internal, stage,
                  std::string("the browser backend threw: ") + e.what(),
                  "a bug in Parity worth a report with PARITY_BROWSER_TRACE=FILE");
  }
  last_setup_ms_ = result.setup_ms;  // known for a failed run too
  if (r.ok() && cpu_at_run_start >= 0) r->run_cpu_ms = (cpu.sample() - cpu_at_run_start) * 1000;
  collect_log(host, mark, !r.ok());
  if (!r.ok() && r.error().stage == Stage::none) r.error().stage = stage;
  return r;
}

Result<RunResult> WebBackend::run_leased(BrowserHost& host, const RunRequest& request,
                                         const StageObserver& enter, RunResult& result) {
  if (host.browser_version.empty()) {
    auto version = host.chromium().command("Browser.getVersion", json::object(), seconds_left(),
                                           Stage::create_env, true);
    if (version.ok()) host.browser_version = version->value("product", "");
  }
  result.properties.emplace_back("browser.version", host.browser_version);

  // --- load-library: the path's bundle from the chosen onnxruntime-web, one bundle per page.
  enter(Stage::load_library);
  PARITY_ASSIGN_OR_RETURN(dist, locate_bundle());
  PARITY_TRY(load_page(host, request, dist, result));
  record_page(host.page_info, dist, result);

  // --- append-provider: the WebGPU adapter, and what the model needs from it.
  enter(Stage::append_provider);
  if (path_.uses_gpu) PARITY_TRY(check_adapter(host, request, result));

  // --- create-session: from the model's bytes, with this backend's options.
  enter(Stage::create_session);
  PARITY_ASSIGN_OR_RETURN(created, create_session(host, request, result));

  // --- run: inputs as raw bytes from the server, outputs POSTed back as raw bytes.
  enter(Stage::run);
  std::map<int, std::string> uploaded;
  PARITY_ASSIGN_OR_RETURN(ran, run_session(host, request, created.output_names.size(), uploaded, result));

  // --- read-output: bytes back into tensors.
  enter(Stage::read_output);
  const std::vector<std::string>& wanted =
      request.output_names.empty() ? created.output_names : request.output_names;
  PARITY_TRY(read_outputs(spec_.label, ran, uploaded, wanted, result));

  // Further input sets (probe --samples N) on the same session, as an application runs them.
  RunRequest next;
  next.output_names = request.output_names;
  for (const auto& inputs : request.more_inputs) {
    enter(Stage::run);
    next.inputs = inputs;
    RunResult more;
    std::map<int, std::string> more_uploaded;
    PARITY_ASSIGN_OR_RETURN(more_ran,
                            run_session(host, next, created.output_names.size(), more_uploaded, more));
    enter(Stage::read_output);
    PARITY_TRY(read_outputs(spec_.label, more_ran, more_uploaded, wanted, more));
    result.more_outputs.push_back(std::move(more.outputs));
  }
  (void)call(host, "release", json::object(), Stage::read_output);
  return std::move(result);
}

Result<OrtWebDist> WebBackend::locate_bundle() const {
  auto dist = locate_ort_web(spec_.ort_web);
  if (!dist.ok()) {
    dist.error().backend = spec_.label;
    return dist;
  }
  if (auto st = check_bundle(*dist, path_); !st.ok()) {
    Error e = st.error();
    e.backend = spec_.label;
    return e;
  }
  return dist;
}

Status WebBackend::load_page(BrowserHost& host, const RunRequest& request, const OrtWebDist& dist,
                             RunResult& result) {
  WebServer& server = host.server();
  const std::string bundle_url = server.origin() + server.mount(dist.dist_dir) + std::string(path_.bundle);
  const std::string page_key = this->page_key();
  const bool page_reused = host.page_key == page_key && !control_.test_fault && !request.fresh;
  result.properties.emplace_back("page.reused", page_reused ? "yes" : "no");
  if (page_reused) return ok_status();
  const double load_s = now_s();
  PARITY_TRY(open_harness(host));
  const std::string warmup_url = server.publish_bytes(model::smoke_model_bytes());
  auto loaded_r = ask(host, "load",
                      {{"bundle", bundle_url},
                       {"threads", spec_.intra_op_threads},
                       {"log_level", log_level_name()},
                       {"trace", trace_enabled()},
                       {"warmup", {{"model_url", warmup_url}, {"ep", path_.ort_ep}}},
                       {"fault", fault_for(Stage::load_library)}},
                      Stage::load_library, decode_load);
  server.withdraw(warmup_url);
  PARITY_ASSIGN_OR_RETURN(loaded, std::move(loaded_r));
  host.page_key = page_key;
  host.page_info = loaded;
  result.properties.emplace_back("page.settle_ms", std::to_string(std::lround(settle_page(host) * 1000)));
  result.setup_ms += (now_s() - load_s) * 1000;
  return ok_status();
}

Status WebBackend::open_harness(BrowserHost& host) {
  ChromiumSession& chromium = host.chromium();
  // A page that held a bundle is closed, not navigated: see ChromiumSession::replace_page.
  if (!host.page_key.empty() || host.page_used) {
    if (auto replaced = chromium.replace_page(seconds_left(), Stage::create_env); !replaced.ok()) {
      Error e = replaced.error();
      e.backend = spec_.label;
      return after_lost_page(host, std::move(e));
    }
  }
  host.page_used = true;
  host.page_key.clear();
  crash_if_asked(host, Stage::create_env);
  if (auto nav = chromium.navigate(host.server().harness_url() + "?run=" + std::to_string(host.runs),
                                   seconds_left(), Stage::run, &control_.stall);
      !nav.ok()) {
    Error e = nav.error();
    e.backend = spec_.label;
    e.stage = Stage::create_env;
    return after_lost_page(host, std::move(e));
  }
  return ok_status();
}

void WebBackend::record_page(const LoadReply& page, const OrtWebDist& dist, RunResult& result) const {
  result.runtime_version = page.version.empty() ? dist.version : page.version;
  result.properties.emplace_back("ort_web.version", result.runtime_version);
  result.properties.emplace_back("ort_web.dist", dist.dist_dir);
  result.properties.emplace_back("ort_web.bundle", std::string(path_.bundle));
  result.properties.emplace_back("page.cross_origin_isolated", page.isolated ? "yes" : "no");
  if (path_.path == WebPath::wasm || !path_.uses_gpu)
    result.properties.emplace_back("wasm.threads",
                                   page.threads > 0 ? std::to_string(page.threads) : "default");
  if (page.warmup_error) result.properties.emplace_back("page.warmup_error", *page.warmup_error);
  if (!page.isolated)
    result.notes.push_back(
        "the page is not cross-origin isolated: onnxruntime-web runs wasm single-threaded");
}

Status WebBackend::check_adapter(BrowserHost& host, const RunRequest& request, RunResult& result) {
  const std::string& label = spec_.label;
  PARITY_ASSIGN_OR_RETURN(gpu, ask(host, "adapter", {{"fault", fault_for(Stage::append_provider)}},
                                   Stage::append_provider, decode_adapter));
  if (!gpu.gpu)
    return web_error(label, ErrorKind::unavailable, Stage::append_provider,
                     "this Chromium exposes no navigator.gpu (WebGPU is off)",
                     "Parity passes --enable-unsafe-webgpu; a custom --chromium may need more flags");
  if (!gpu.adapter)
    return web_error(label, ErrorKind::unavailable, Stage::append_provider,
                     "navigator.gpu.requestAdapter() returned null: no WebGPU adapter",
                     "without a GPU Chromium uses SwiftShader; on a GPU machine pass Vulkan flags with "
                     "--chromium-flag (docs/browser.md)");
  const AdapterInfo& a = *gpu.adapter;
  record_adapter(a, result);
  if (!spec_.check_features || a.has_feature("shader-f16")) return ok_status();
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(request.model_path));
  if (info.element_types.count(DType::float16))
    return web_error(
        label, ErrorKind::unavailable, Stage::append_provider,
        "the model uses float16 tensors and this WebGPU adapter (" + result.adapter +
            ") has no 'shader-f16' feature: onnxruntime-web cannot run fp16 kernels on it (web-jsep "
            "computes zeros, its shaders failing WebGPU validation; web-webgpu fails at run)",
        "the adapter lacks a feature this model needs (shader-f16): run it on web-wasm, export an fp32 "
        "model, or use a GPU whose adapter offers shader-f16; "
        "check=off skips this check to see what onnxruntime-web does");
  return ok_status();
}

Result<CreateReply> WebBackend::create_session(BrowserHost& host, const RunRequest& request,
                                               RunResult& result) {
  WebServer& server = host.server();
  json options = session_options();
  // onnxruntime-web gets the model as bytes, with no folder to resolve external data against: each
  // file is served and named as the model spells its location (session option externalData).
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(request.model_path));
  std::vector<std::string> urls;
  for (const std::string& location : info.external_files) {
    auto file = model::external_file_path(request.model_path, location);
    if (!file.ok()) {
      for (const auto& u : urls) server.withdraw(u);
      Error e = file.error();
      e.backend = spec_.label;
      return e;
    }
    urls.push_back(server.publish_file(file->string()));
    options["externalData"].push_back({{"path", location}, {"data", urls.back()}});
  }
  const std::string model_url = server.publish_file(request.model_path);
  auto created_r =
      ask(host, "create",
          {{"model_url", model_url}, {"options", options}, {"fault", fault_for(Stage::create_session)}},
          Stage::create_session, decode_create);
  server.withdraw(model_url);
  for (const auto& u : urls) server.withdraw(u);
  PARITY_ASSIGN_OR_RETURN(created, std::move(created_r));
  result.create_ms = created.create_ms;
  record_placement(created, result);
  if (created.device_f16)
    result.properties.emplace_back("device.shader_f16", *created.device_f16 ? "yes" : "no");
  if (const auto& v = created.validation; !v.empty())
    return web_error(spec_.label, ErrorKind::error, Stage::create_session,
                     "WebGPU reported " + std::to_string(v.size()) +
                         " validation error(s) while creating the session: " + first_line(v[0]),
                     "the backend produced invalid GPU work; outputs are not trustworthy");
  return created;
}

json WebBackend::session_options() const {
  json ep = path_.ort_ep;
  if (path_.uses_gpu || !spec_.provider_options.empty()) {
    ep = {{"name", path_.ort_ep}};
    for (const auto& [k, v] : spec_.provider_options) ep[k] = option_value(v);
  }
  json session_config = json::object();
  for (const auto& [k, v] : spec_.session_config) session_config[k] = v;
  // web-wasm is the CPU EP itself: fallback does not apply (as for native cpu).
  if (!spec_.allow_fallback && path_.uses_gpu) session_config["session.disable_cpu_ep_fallback"] = "1";
  json options = {{"executionProviders", json::array({ep})},
                  {"graphOptimizationLevel", spec_.opt_level},
                  {"logSeverityLevel", spec_.count_nodes ? 0 : severity_of(log_level_name())},
                  {"logVerbosityLevel", 0}};
  // onnxruntime-web joins nested `extra` keys with dots into session config entries, so full
  // ORT keys ("session.disable_cpu_ep_fallback") go at its top level; under "session" they would
  // become "session.session.*" and be ignored without a word.
  if (!session_config.empty()) options["extra"] = session_config;
  return options;
}

void WebBackend::record_placement(const CreateReply& created, RunResult& result) const {
  std::map<std::string, int64_t> placed;
  for (const auto& p : created.placement.value_or(std::vector<PlacedNodes>{})) placed[p.ep] += p.nodes;
  if (created.placement && placed.empty()) {  // every node folded away at session creation
    result.nodes_on_backend = 0;
    result.nodes_on_cpu = 0;
  }
  if (placed.empty()) return;
  std::string text;
  int64_t on_cpu = 0, on_gpu = 0;
  for (const auto& [name, n] : placed) {
    text += (text.empty() ? "" : ",") + name + ":" + std::to_string(n);
    (name == "CPUExecutionProvider" ? on_cpu : on_gpu) += n;
  }
  result.properties.emplace_back("placement", text);
  result.nodes_on_backend = path_.uses_gpu ? on_gpu : on_cpu;
  result.nodes_on_cpu = path_.uses_gpu ? on_cpu : 0;
  if (path_.uses_gpu && on_gpu > 0 && !placed.count(std::string(path_.provider))) {
    std::string ran;
    for (const auto& [name, n] : placed)
      if (name != "CPUExecutionProvider") ran += (ran.empty() ? "" : ", ") + name;
    result.notes.push_back("onnxruntime-web " + result.runtime_version + "'s " + std::string(path_.bundle) +
                           " ran " + ran + ", not " + std::string(path_.provider) +
                           " (this release predates that path)");
  }
}

Result<RunReply> WebBackend::run_session(BrowserHost& host, const RunRequest& request, std::size_t outputs,
                                         std::map<int, std::string>& uploaded, RunResult& result) {
  const std::string& label = spec_.label;
  WebServer& server = host.server();
  std::vector<std::string> published;
  PARITY_ASSIGN_OR_RETURN(inputs, publish_inputs(server, request, published));
  // One upload per requested output (all of the graph's when none are named), each at most once.
  const std::string slot =
      server.open_slot(request.output_names.empty() ? outputs : request.output_names.size());
  auto ran_r = ask(
      host, "run",
      {{"inputs", inputs},
       {"outputs", request.output_names},
       {"warmup", request.warmup_runs},
       {"upload", slot},
       {"fault", fault_for(Stage::run).is_null() ? fault_for(Stage::read_output) : fault_for(Stage::run)}},
      Stage::run, decode_run);
  for (const auto& url : published) server.withdraw(url);
  uploaded = server.take_slot(slot);
  PARITY_ASSIGN_OR_RETURN(ran, std::move(ran_r));
  result.run_ms = ran.run_ms;
  if (const auto& v = ran.validation; !v.empty())
    return web_error(label, ErrorKind::error, Stage::run,
                     "WebGPU reported " + std::to_string(v.size()) +
                         " validation error(s) during the run: " + first_line(v[0]),
                     "the backend produced invalid GPU work (commonly a shader the adapter cannot compile); "
                     "outputs are not trustworthy");
  if (const auto& lost = ran.device_lost) {
    host.page_key.clear();  // the page's device is gone: the next run loads a fresh page
    return web_error(label, ErrorKind::crashed, Stage::run,
                     "the WebGPU device was lost during the run (" + *lost + ")",
                     "a GPU process crash or driver reset; results after it are not trustworthy");
  }
  return ran;
}

Result<json> WebBackend::publish_inputs(WebServer& server, const RunRequest& request,
                                        std::vector<std::string>& published) const {
  json inputs = json::array();
  for (const auto& in : request.inputs) {
    if (!ort_web_takes(in.tensor.dtype())) {
      for (const auto& url : published) server.withdraw(url);
      return web_error(spec_.label, ErrorKind::unavailable, Stage::prepare_inputs,
                       "input '" + in.name + "' is " + std::string(dtype_name(in.tensor.dtype())) +
                           ", which onnxruntime-web's Tensor does not take",
                       "use a native backend for this model");
    }
    const auto bytes = in.tensor.bytes();
    published.push_back(
        server.publish_bytes(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
    inputs.push_back({{"name", in.name},
                      {"type", std::string(dtype_name(in.tensor.dtype()))},
                      {"dims", in.tensor.shape()},
                      {"url", published.back()}});
  }
  return inputs;
}

Result<std::unique_ptr<WebBackend>> make_web_backend(const BackendSpec& spec, BrowserPool& pool,
                                                     WebRunControl control) {
  const auto path = web_path_for(spec.ep);
  const std::string label = spec.label.empty() ? spec.ep : spec.label;
  if (!path)
    return web_error(label, ErrorKind::unavailable, Stage::none, "'" + spec.ep + "' is not a browser backend",
                     "browser backends: web-wasm, web-jsep, web-webgpu");
  if (const auto& f = control.test_fault) {
    const bool ok =
        f->action == FaultAction::segv || f->action == FaultAction::hang || f->action == FaultAction::abort ||
        (f->action == FaultAction::stall &&
         (f->stage == Stage::load_library || f->stage == Stage::append_provider ||
          f->stage == Stage::create_session || f->stage == Stage::run || f->stage == Stage::read_output)) ||
        (f->action == FaultAction::null_result && f->stage == Stage::read_output) ||
        (f->action == FaultAction::device_lost && f->stage == Stage::run);
    if (!ok)
      return web_error(
          label, ErrorKind::bad_input, Stage::parse_args,
          "test fault " + std::string(to_string(f->stage)) + " is not one a browser backend can perform",
          "browser backends take segv, hang and abort at any stage, stall from load-library on, null at "
          "read-output and "
          "device-lost at run; oom needs a real model over the 4 GiB wasm heap");
  }
  return std::make_unique<WebBackend>(spec, *path, pool, std::move(control));
}

Result<std::unique_ptr<Backend>> make_standalone_web_backend(const BackendSpec& spec) {
  auto fault = test_fault_from_env();
  if (!fault.ok()) return fault.error();
  auto pool = std::make_unique<BrowserPool>();
  WebRunControl control;
  control.test_fault = *fault;
  auto backend = make_web_backend(spec, *pool, control);
  if (!backend.ok()) return backend.error();
  (*backend)->owned_pool_ = std::move(pool);
  return std::unique_ptr<Backend>(std::move(backend).value());
}

}  // namespace parity::backend::browser
