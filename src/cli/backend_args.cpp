#include "cli/backend_args.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "chaos/fault_spec.h"
#include "cli/common_options.h"
#include "core/number_text.h"
#include "core/text.h"

namespace parity::cli {
namespace {

Error spec_error(const std::string& text, const std::string& what, std::string hint = {}) {
  if (hint.empty()) hint = "write backends as [LABEL=]EP[:KEY=VALUE]..., e.g. webgpu:opt=basic:fallback=off";
  return make_error(ErrorKind::bad_input, Stage::parse_args, "backend '" + text + "': " + what,
                    std::move(hint));
}

bool valid_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

Result<bool> parse_switch(const std::string& text, const std::string& key, const std::string& value) {
  if (value == "on" || value == "yes" || value == "true" || value == "1") return true;
  if (value == "off" || value == "no" || value == "false" || value == "0") return false;
  return spec_error(text, key + "=" + value + " is not on/off");
}

}  // namespace

Result<backend::BackendSpec> parse_backend_spec(const std::string& text,
                                                const backend::BackendSpec& defaults) {
  backend::BackendSpec spec = defaults;
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (;;) {
    std::size_t colon = text.find(':', pos);
    parts.push_back(text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos));
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  std::string head = parts[0];
  if (auto eq = head.find('='); eq != std::string::npos) {
    spec.label = head.substr(0, eq);
    spec.ep = head.substr(eq + 1);
  } else {
    spec.label = spec.ep = head;
  }
  std::transform(spec.ep.begin(), spec.ep.end(), spec.ep.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (!valid_name(spec.label) || !valid_name(spec.ep)) return spec_error(text, "bad name");
  if (!backend::is_known_ep(spec.ep)) {
    std::string known;
    for (const auto& name : backend::known_ep_names()) known += (known.empty() ? "" : ", ") + name;
    return spec_error(text, "unknown EP '" + spec.ep + "'",
                      "known EPs: " + known + " (run 'parity backends' to see which the library has)");
  }
  const bool web = backend::is_web_backend(spec.ep);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& kv = parts[i];
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return spec_error(text, "'" + kv + "' is not KEY=VALUE");
    std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    const bool web_key = key == "ort-web" || key == "layout" || key == "log" || key == "check";
    const bool native_key = key == "ort-lib" || key == "adapter" || key == "max-memory" || key == "vk-mask" ||
                            key == "save-optimized";
    if (web_key && !web)
      return spec_error(text, key + "= applies to browser backends (web-wasm, web-jsep, web-webgpu) only");
    if (native_key && web)
      return spec_error(text, key + "= applies to native ONNX Runtime backends only",
                        key == "ort-lib" ? "browser backends take ort-web=VERSION or ort-web=DIR"
                        : key == "adapter"
                            ? "a browser backend's adapter is whatever Chromium's WebGPU offers"
                            : "a browser runs many pages in one process: its memory is not per run");
    if (key == "ort-web") {
      spec.ort_web = value;
    } else if (key == "layout") {
      if (value != "NCHW" && value != "NHWC")
        return spec_error(text, "layout=" + value + " is not NCHW or NHWC");
      if (spec.ep == "web-wasm")
        return spec_error(text, "layout= applies to the WebGPU paths (web-jsep, web-webgpu)");
      spec.provider_options.emplace_back("preferredLayout", value);
    } else if (key == "log") {
      if (value != "verbose" && value != "info" && value != "warning" && value != "error")
        return spec_error(text, "log=" + value + " is not one of verbose|info|warning|error");
      spec.log_level = value;
    } else if (key == "check") {
      PARITY_ASSIGN_OR_RETURN(on, parse_switch(text, key, value));
      spec.check_features = on;
    } else if (key == "opt") {
      if (value != "all" && value != "extended" && value != "basic" && value != "disabled")
        return spec_error(text, "opt=" + value + " is not one of all|extended|basic|disabled");
      spec.opt_level = value;
    } else if (key == "fallback") {
      PARITY_ASSIGN_OR_RETURN(on, parse_switch(text, key, value));
      spec.allow_fallback = on;
    } else if (key == "nodes") {
      PARITY_ASSIGN_OR_RETURN(on, parse_switch(text, key, value));
      spec.count_nodes = on;
    } else if (key == "ort-lib") {
      spec.ort_lib = value;
    } else if (key == "adapter") {
      spec.webgpu_adapter = value;
    } else if (key == "save-optimized") {
      spec.optimized_model_path = std::filesystem::absolute(value).string();
    } else if (key == "vk-mask") {
      // Checked here with the layer's own parser, so a typo fails now, not inside a worker.
      std::vector<chaos::FaultSpec> faults;
      std::string why;
      if (!chaos::parse_fault_list("mask:" + value, faults, why))
        return spec_error(text, "vk-mask=" + value + ": " + why,
                          "e.g. webgpu:vk-mask=maxStorageBufferRange=128M (docs/chaos.md lists the limits)");
      spec.vulkan_faults += (spec.vulkan_faults.empty() ? "" : ";") + std::string("mask:") + value;
    } else if (key == "max-memory") {
      auto bytes = parse_size(value, "max-memory=");
      if (!bytes.ok()) return spec_error(text, bytes.error().message, "e.g. cpu:max-memory=512M");
      spec.max_memory_bytes = *bytes;
    } else if (key == "threads") {
      auto threads = parse_integer(value, "threads=", 0, 1024);
      if (!threads.ok())
        return spec_error(text, threads.error().message, "e.g. web-wasm:threads=4 (0: the default)");
      spec.intra_op_threads = static_cast<int>(*threads);
    } else if (key.rfind("so.", 0) == 0 && key.size() > 3) {
      spec.session_config.emplace_back(key.substr(3), value);
    } else {
      spec.provider_options.emplace_back(key, value);
    }
  }
  return spec;
}

Result<std::vector<backend::BackendSpec>> parse_backend_list(const std::string& text,
                                                             const backend::BackendSpec& defaults) {
  std::vector<backend::BackendSpec> out;
  for (const auto& item : split(text, ',')) {
    if (item.empty()) return spec_error(text, "empty entry in the backend list");
    PARITY_ASSIGN_OR_RETURN(spec, parse_backend_spec(item, defaults));
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace parity::cli
