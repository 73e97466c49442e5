#include "guard/web_acceptance.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backend/browser/chromium_session.h"
#include "backend/browser/ort_web_dist.h"
#include "backend/browser/page_reply.h"
#include "backend/browser/web_backend.h"
#include "backend/browser/web_server.h"
#include "core/file_io.h"
#include "guard/web_sources.h"
#include "manifest/manifest.h"
#include "model/onnx_model.h"

namespace parity::guard {
namespace {

namespace fs = std::filesystem;
using backend::browser::ChromiumOptions;
using backend::browser::ChromiumSession;
using backend::browser::WebServer;
using nlohmann::json;

// How long one declaration may take, browser start to outputs; a page that stops working is
// caught long before by the stall watch (the browser group idle for `window_s`).
constexpr double kAcceptTimeoutS = 900;
constexpr backend::browser::StallWatchConfig kAcceptStallWatch{.window_s = 30, .idle_fraction = 0.05};

Error page_error(const json& e, const std::string& label) {
  Error error;
  error.backend = e.value("backend", "").empty() ? label : e.value("backend", "");
  error.stage = stage_from_string(e.value("stage", "")).value_or(Stage::none);
  error.kind = error_kind_from_string(e.value("kind", "")).value_or(ErrorKind::error);
  error.message = e.value("message", "");
  error.hint = e.value("hint", "");
  return error;
}

std::optional<GuardEvent::Kind> event_kind(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(GuardEvent::Kind::fell_back); ++k)
    if (to_string(static_cast<GuardEvent::Kind>(k)) == name) return static_cast<GuardEvent::Kind>(k);
  return std::nullopt;
}

void append_events(const json& events, std::vector<GuardEvent>& out) {
  for (const json& e : events) {
    GuardEvent event;
    event.kind = event_kind(e.value("kind", "")).value_or(GuardEvent::Kind::run_failed);
    event.backend = e.value("backend", "");
    event.message = e.value("message", "");
    if (e.contains("error")) event.error = page_error(e["error"], event.backend);
    out.push_back(std::move(event));
  }
}

// The manifest as the page gets it: every file it records (declarations' files, the sweep's input
// images, found as the native guard finds them) replaced by the URL the server gives it.
json served_manifest(const Manifest& m, const fs::path& manifest_dir, WebServer& s) {
  json j = manifest::to_json(m);
  const auto serve = [&](json& entry) {
    if (!entry.is_string() || entry.get<std::string>().empty()) return;
    const fs::path file = manifest::resolve_recorded(entry.get<std::string>(), manifest_dir);
    entry = s.origin() + s.mount(fs::absolute(file).parent_path().string()) + file.filename().string();
  };
  for (auto& [label, d] : j["backends"].items())
    if (d.contains("file")) serve(d["file"]);
  if (j.contains("sweep") && j["sweep"].contains("inputs") && j["sweep"]["inputs"].contains("files"))
    for (auto& [name, file] : j["sweep"]["inputs"]["files"].items()) serve(file);
  return j;
}

// Everything the page needs, served by one localhost server: the distribution, the two modules,
// the model's and the manifest's folders, the sample's bytes and a slot for the outputs.
struct AcceptPage {
  std::string url;  // the folder the page and its modules are served from, ending in '/'
  std::unique_ptr<WebServer> server;
  std::unique_ptr<ChromiumSession> chromium;
  json args;
  std::string slot;
};

Result<AcceptPage> open_page(const manifest::Declaration& d, const Manifest& m, const AcceptOptions& o,
                             const fs::path& model, const std::vector<NamedTensor>& sample,
                             const fs::path& scratch) {
  const auto path = backend::browser::web_path_for(d.ep);
  if (!path)
    return make_error(ErrorKind::internal, Stage::parse_args, "'" + d.ep + "' is not a browser path");
  PARITY_ASSIGN_OR_RETURN(dist, backend::browser::locate_ort_web(d.runtime.ort_web));
  PARITY_TRY(backend::browser::check_bundle(dist, *path));
  const fs::path page_dir = scratch / ("web-" + d.backend);
  std::error_code ec;
  fs::create_directories(page_dir, ec);
  PARITY_TRY(write_text_file(page_dir / "index.html",
                             "<!doctype html><meta charset=\"utf-8\"><title>parity accept</title>\n"));
  PARITY_TRY(write_text_file(page_dir / "parity-guard.mjs", kGuardModuleSource));
  PARITY_TRY(write_text_file(page_dir / "accept-page.mjs", kAcceptPageSource));

  AcceptPage page;
  PARITY_ASSIGN_OR_RETURN(server, WebServer::start());
  page.server = std::move(server);
  WebServer& s = *page.server;
  page.url = s.origin() + s.mount(page_dir.string());
  const std::string& here = page.url;
  const fs::path manifest_dir = fs::absolute(o.manifest_path).parent_path();
  json inputs = json::array();
  for (const NamedTensor& in : sample) {
    if (!backend::browser::ort_web_takes(in.tensor.dtype()))
      return make_error(ErrorKind::unavailable, Stage::prepare_inputs,
                        "input '" + in.name + "' is " + std::string(dtype_name(in.tensor.dtype())) +
                            ", which onnxruntime-web's Tensor does not take");
    const auto bytes = in.tensor.bytes();
    inputs.push_back({{"name", in.name},
                      {"type", std::string(dtype_name(in.tensor.dtype()))},
                      {"dims", in.tensor.shape()},
                      {"url", s.origin() + s.publish_bytes(std::string(
                                               reinterpret_cast<const char*>(bytes.data()), bytes.size()))}});
  }
  // The guard runs the model's own outputs: one upload each.
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(model));
  page.slot = s.open_slot(info.outputs.size());
  page.args = {{"ortUrl", s.origin() + s.mount(dist.dist_dir) + std::string(path->bundle)},
               {"guardUrl", here + "parity-guard.mjs"},
               {"modelUrl",
                s.origin() + s.mount(fs::absolute(model).parent_path().string()) + model.filename().string()},
               {"baseUrl", s.origin() + s.mount(manifest_dir.string())},
               {"manifest", served_manifest(m, manifest_dir, s)},
               {"label", d.backend},
               {"inputs", inputs},
               {"upload", s.origin() + page.slot}};

  ChromiumOptions options;
  if (!d.runtime.browser.empty()) options.executable = d.runtime.browser;
  options.url = here + "index.html";
  PARITY_ASSIGN_OR_RETURN(chromium, ChromiumSession::launch(options));
  page.chromium = std::move(chromium);
  return page;
}

}  // namespace

void accept_in_browser(const manifest::Declaration& d, const Manifest& m, const AcceptOptions& o,
                       const fs::path& model, const std::vector<NamedTensor>& sample, const fs::path& scratch,
                       BackendAcceptance& a) {
  auto page = open_page(d, m, o, model, sample, scratch);
  if (!page.ok()) {
    Error e = page.error();
    if (e.backend.empty()) e.backend = d.backend;
    a.events.push_back({GuardEvent::Kind::open_failed, d.backend, e.describe(), e});
    return;
  }
  auto reply = page->chromium->evaluate(
      "import('" + page->url + "accept-page.mjs').then(m => m.accept(" + page->args.dump() + "))",
      kAcceptTimeoutS, &kAcceptStallWatch);
  if (!reply.ok()) {
    Error e = reply.error();
    e.backend = d.backend;
    if (const auto& stall = page->chromium->last_stall()) e.message += " (" + stall->describe() + ")";
    a.events.push_back({GuardEvent::Kind::run_failed, d.backend, e.describe(), e});
    return;
  }
  const json& r = *reply;
  append_events(r.value("events", json::array()), a.events);  // everything onEvent saw, in order
  if (r.contains("openError") || !r.contains("run")) {
    const Error e =
        page_error(r.contains("openError") ? r["openError"] : r.value("runError", json::object()), d.backend);
    a.events.push_back(
        {r.contains("openError") ? GuardEvent::Kind::open_failed : GuardEvent::Kind::run_failed, d.backend,
         e.describe(), e});
    return;
  }
  const json& run = r["run"];
  std::vector<backend::browser::OutputInfo> outputs;
  for (const json& out : run.value("outputs", json::array()))
    outputs.push_back({out.value("name", ""), out.value("type", ""), out.value("dims", Shape{})});
  auto tensors = backend::browser::uploaded_tensors(d.backend, outputs, page->server->take_slot(page->slot));
  if (!tensors.ok()) {
    a.events.push_back(
        {GuardEvent::Kind::run_failed, d.backend, tensors.error().describe(), tensors.error()});
    return;
  }
  GuardedRun g;
  g.outputs = std::move(tensors).value();
  g.backend = run.value("backend", d.backend);
  g.tiles = run.value("tiles", 1);
  g.tile_budget_pixels = run.value("tileBudgetPixels", int64_t{0});
  for (const json& c : run.value("checks", json::array()))
    g.checks.push_back({c.value("check", ""), c.value("passed", false), c.value("detail", "")});
  g.wall_ms = run.value("wallMs", 0.0);
  g.checks_ms = run.value("checksMs", 0.0);
  a.run = std::move(g);
}

}  // namespace parity::guard
