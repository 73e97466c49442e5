// guard/web_acceptance.h: `parity accept` for a browser declaration (web-wasm, web-jsep,
// web-webgpu): the sample through the web module, parity-guard.mjs, in headless Chromium on the
// declaration's onnxruntime-web, the way the application's page runs it. The native guard is not
// involved: what is accepted is the module the page ships.
#pragma once

#include <filesystem>
#include <vector>

#include "guard/acceptance.h"
#include "parity/manifest.h"
#include "parity/tensor.h"

namespace parity::guard {

// Runs declaration `d` alone (ParityGuard.open's `only`) on `sample` and fills `a`: the events
// the module emitted, its run (backend, tiles, checks, times, the outputs read back) or, when it
// threw, the reason. The caller judges the task's assertions on the outputs.
void accept_in_browser(const manifest::Declaration& d, const Manifest& m, const AcceptOptions& o,
                       const std::filesystem::path& model, const std::vector<NamedTensor>& sample,
                       const std::filesystem::path& scratch, BackendAcceptance& a);

}  // namespace parity::guard
