// `parity backends`: which execution providers an ONNX Runtime library has, and (--check)
// whether each can really create a session and run here.
#include <unistd.h>

#include <cstdio>
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

int run(const BackendsArgs& a) {
  // Listing loads the library in this process; --check runs each EP in an isolated worker.
  auto info = backend::ort::probe_ort_library(a.common.ort_lib);
  if (!info.ok()) {
    std::fprintf(stderr, "parity backends: %s\n", info.error().describe().c_str());
    return kExitCannotRun;
  }
  std::printf("onnxruntime %s (OrtApi %u) from %s\n", info->version.c_str(), info->api_version,
              info->path.c_str());
  const backend::BackendSpec defaults = a.common.defaults();
  auto web = backend::browser::locate_ort_web(defaults.ort_web);
  const std::string chromium = defaults.browser.empty() ? "/usr/lib/chromium/chromium" : defaults.browser;
  std::vector<std::string> eps = info->eps;
  if (!a.check) {
    for (std::size_t i = 0; i < info->eps.size(); ++i)
      std::printf("  %-10s %s\n", info->eps[i].c_str(), info->providers[i].c_str());
  }
  if (web.ok()) {
    std::printf("onnxruntime-web %s from %s, in %s\n", web->version.c_str(), web->dist_dir.c_str(),
                chromium.c_str());
    for (const char* name : {"web-wasm", "web-jsep", "web-webgpu"}) {
      const auto path = backend::browser::web_path_for(name);
      const bool has = backend::browser::check_bundle(*web, *path).ok();
      if (!a.check)
        std::printf("  %-10s %s%s\n", name, std::string(path->bundle).c_str(), has ? "" : " (missing)");
      if (has) eps.emplace_back(name);
    }
  } else {
    std::printf("browser backends: %s\n", web.error().describe().c_str());
  }
  if (!a.check) {
    std::printf("built in is not the same as usable: run with --check to create a session on each\n");
    return kExitOk;
  }
  auto limits = a.common.limits();
  if (!limits.ok()) {
    std::fprintf(stderr, "parity backends: %s\n", limits.error().message.c_str());
    return kExitUsage;
  }
  auto dir = ScratchDir::create("parity-smoke", Stage::write_output);
  if (!dir.ok()) {
    std::fprintf(stderr, "parity backends: %s\n", dir.error().describe().c_str());
    return kExitCannotRun;
  }
  const auto model_path = *dir / "smoke.onnx";
  if (auto st = model::write_smoke_model(model_path); !st.ok()) {
    std::fprintf(stderr, "parity backends: %s\n", st.error().describe().c_str());
    return kExitCannotRun;
  }
  backend::RunRequest req;
  req.model_path = model_path.string();
  std::vector<float> x(8, 0.5f);
  req.inputs.push_back({"x", Tensor::from_floats({1, 8}, x)});
  int usable = 0;
  isolate::BackendRunner runner;  // one browser for the three web backends
  for (const auto& ep : eps) {
    backend::BackendSpec spec = defaults;
    spec.label = spec.ep = ep;
    auto run = runner.run(spec, req, *limits);
    if (run.result.ok()) {
      ++usable;
      std::printf("  %-10s usable   %s\n", spec.ep.c_str(), run.result->adapter.c_str());
    } else {
      std::printf("  %-10s %-8s %s\n", spec.ep.c_str(),
                  std::string(to_string(run.result.error().kind)).c_str(),
                  run.result.error().message.substr(0, 160).c_str());
    }
  }
  std::printf("%d of %zu backends usable here\n", usable, eps.size());
  return kExitOk;
}

}  // namespace

Verb backends_verb() {
  return {
      "backends", "list the execution providers of an ONNX Runtime library (--check: which really run)",
      false, [](CLI::App& cmd) -> VerbRunner {
        auto args = std::make_shared<BackendsArgs>();
        cmd.description(
            "Lists the EPs built into the ONNX Runtime library (--ort-lib, default the bundled 1.30.0) under "
            "the short names --backends takes, and the browser backends (onnxruntime-web in headless "
            "Chromium: "
            "web-wasm, web-jsep, web-webgpu; --ort-web-version).\nWith --check, runs a tiny built-in model "
            "on each "
            "(native EPs in isolated workers, browser ones in one Chromium) and says which really work on "
            "this "
            "machine (and on which adapter).");
        cmd.add_flag("--check", args->check, "create a session and run on each EP");
        add_common_options(cmd, args->common);
        return [args] { return run(*args); };
      }};
}

}  // namespace parity::cli
