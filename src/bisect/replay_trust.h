// bisect/replay_trust.h: what a replayed record may make Parity do.
//
// Repro folders and finding records are data made to be attached to public issues: whoever wrote
// one chooses every byte of it. A recorded backend spec can name a program (browser, Chromium
// flags such as --renderer-cmd-prefix), a library (ort_lib, a Vulkan ICD json as the adapter), a
// folder of code (ort_web as a path) or a file to write (save-optimized, EP options that are
// paths). Replaying those as written runs the recorder's code as the user. So a replay takes them
// from the user (the command line, the environment, the user's own config) and only reports what
// the record named, unless the user passes --trust-repro.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"

namespace parity::bisect {

struct ReplaySpec {
  backend::BackendSpec spec;  // what to run
  // One line per recorded value not used: "recorded browser /x/y not used: pass --trust-repro to
  // run it". Empty with `trust`, or when the record names nothing but safe values.
  std::vector<std::string> not_used;
};

// The spec a replay runs for `recorded` (a repro's target_spec, or its spec text parsed with
// `given` as defaults). `given` carries the user's own run-wide settings (--ort-lib, --chromium,
// --chromium-flag, --ort-web-*, --webgpu-adapter): those always win where set. Without `trust`,
// every field that can execute or load code or write a file comes from `given` (empty: Parity's
// default) and the recorded value is listed in not_used: ort_lib, browser, browser_args, ort_web
// when a folder, webgpu_adapter when a path, optimized_model_path, and provider_options /
// session_config entries whose value is a path or whose key names one (path, file, dir, lib, ...).
// Everything else (EP, opt level, fallback, threads, layout, memory cap, vk-mask) is replayed.
ReplaySpec replay_spec(const backend::BackendSpec& recorded, const backend::BackendSpec& given, bool trust);

}  // namespace parity::bisect
