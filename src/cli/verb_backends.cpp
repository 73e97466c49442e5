// `parity backends`: which execution providers an ONNX Runtime library has, and (--check)
// whether each can really create a session and run here.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "backend/browser/ort_web_dist.h"
#include "backend/ort/ort_backend.h"
#include "cli/common_options.h"
#include "cli/verb.h"
#include "core/scratch_dir.h"
#include "isolate/backend_runner.h"
#include "model/smoke_model.h"

namespace parity::cli {
namespace {

struct BackendsArgs {
  CommonOptions common;
  bool check = false;
};

Result<VerbOutput> run(const BackendsArgs& a) {
  // Listing loads the library in this process; --check runs each EP in an isolated worker.
  PARITY_ASSIGN_OR_RETURN(info, backend::ort::probe_ort_library(a.common.ort_lib));
  VerbOutput out;
  std::string& text = out.text;
  text += fmt::format("onnxruntime {} (OrtApi {}) from {}\n", info.version, info.api_version, info.path);
  const backend::BackendSpec defaults = a.common.defaults();
  auto web = backend::browser::locate_ort_web(defaults.ort_web);
  const std::string chromium = defaults.browser.empty() ? "/usr/lib/chromium/chromium" : defaults.browser;
  std::vector<std::string> eps = info.eps;
  if (!a.check)
    for (std::size_t i = 0; i < info.eps.size(); ++i)
      text += fmt::format("  {:<10} {}\n", info.eps[i], info.providers[i]);
  if (web.ok()) {
    text += fmt::format("onnxruntime-web {} from {}, in {}\n", web->version, web->dist_dir, chromium);
    for (const char* name : {"web-wasm", "web-jsep", "web-webgpu"}) {
      const auto path = backend::browser::web_path_for(name);
      const bool has = backend::browser::check_bundle(*web, *path).ok();
      if (!a.check) text += fmt::format("  {:<10} {}{}\n", name, path->bundle, has ? "" : " (missing)");
      if (has) eps.emplace_back(name);
    }
  } else {
    text += "browser backends: " + web.error().describe() + "\n";
  }
  if (!a.check) {
    text += "built in is not the same as usable: run with --check to create a session on each\n";
    return out;
  }
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  PARITY_ASSIGN_OR_RETURN(dir, ScratchDir::create("parity-smoke", Stage::write_output));
  const auto model_path = dir / "smoke.onnx";
  PARITY_TRY(model::write_smoke_model(model_path));
  backend::RunRequest req;
  req.model_path = model_path.string();
  std::vector<float> x(8, 0.5f);
  req.inputs.push_back({"x", Tensor::from_floats({1, 8}, x)});
  int usable = 0;
  isolate::BackendRunner runner;  // one browser for the three web backends
  for (const auto& ep : eps) {
    backend::BackendSpec spec = defaults;
    spec.label = spec.ep = ep;
    auto run = runner.run(spec, req, limits);
    if (run.result.ok()) {
      ++usable;
      text += fmt::format("  {:<10} usable   {}\n", spec.ep, run.result->adapter);
    } else {
      const Error& e = run.result.error();
      text += fmt::format("  {:<10} {:<8} {}\n", spec.ep, to_string(e.kind), e.message.substr(0, 160));
      if (!e.hint.empty()) text += fmt::format("  {:<10} {:<8} hint: {}\n", "", "", e.hint);
    }
  }
  text += fmt::format("{} of {} backends usable here\n", usable, eps.size());
  return out;
}

void declare_backends(CLI::App& cmd, BackendsArgs& a) {
  cmd.footer(
      "Lists the EPs built into the ONNX Runtime library (--ort-lib, default the bundled 1.30.0) under "
      "the short names --backends takes, and the browser backends (onnxruntime-web in headless "
      "Chromium: "
      "web-wasm, web-jsep, web-webgpu; --ort-web-version).\nWith --check, runs a tiny built-in model "
      "on each "
      "(native EPs in isolated workers, browser ones in one Chromium) and says which really work on "
      "this "
      "machine (and on which adapter).");
  cmd.add_flag("--check", a.check, "create a session and run on each EP");
  add_common_options(cmd, a.common);
}

}  // namespace

Verb backends_verb() {
  return make_verb<BackendsArgs>(
      "backends", "list the execution providers of an ONNX Runtime library (--check: which really run)",
      declare_backends, run);
}

}  // namespace parity::cli
