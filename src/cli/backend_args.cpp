#include "cli/backend_args.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "chaos/fault_spec.h"
#include "cli/common_options.h"
#include "core/number_text.h"
#include "core/text.h"
#include "isolate/protocol.h"
#include "probe/reference_settings.h"

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

// Labels name report rows and files (repro output_<label>, --save-io folders): "." or ".." would
// write over the reference's files, so a label starts with a letter or digit.
constexpr std::size_t kMaxLabel = 64;
bool valid_label(const std::string& s) {
  return valid_name(s) && std::isalnum(static_cast<unsigned char>(s[0])) && s.size() <= kMaxLabel;
}

// True when `item` names its label (LABEL=EP...), not just the EP.
bool label_written(const std::string& item) {
  return item.substr(0, item.find(':')).find('=') != std::string::npos;
}

// Same backend apart from the label: it would compute the same numbers.
bool same_settings(backend::BackendSpec a, const backend::BackendSpec& b) {
  a.label = b.label;
  return isolate::spec_to_json(a) == isolate::spec_to_json(b);
}

// Gives every spec of `specs` (parsed from `items`) a label of its own, apart from `reference`
// when given: see parse_backend_list and parse_backends_beside.
Status label_apart(const std::string& text, const std::vector<std::string>& items,
                   std::vector<backend::BackendSpec>& specs, const backend::BackendSpec* reference) {
  std::set<std::string> taken;
  if (reference) taken.insert(reference->label);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (!label_written(items[i])) continue;
    const auto& s = specs[i];
    if (reference && s.label == reference->label) {
      if (same_settings(s, *reference)) continue;  // the reference's own row
      return spec_error(
          items[i], "label '" + s.label + "' is the reference's, with other settings",
          "give it a label of its own, e.g. " + s.label + "-2=" + items[i].substr(items[i].find('=') + 1));
    }
    if (!taken.insert(s.label).second)
      return spec_error(text, "label '" + s.label + "' is given twice",
                        "give each backend a label of its own");
  }
  bool reference_row = false;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (label_written(items[i])) continue;
    auto& s = specs[i];
    if (reference && s.label == reference->label && !reference_row && same_settings(s, *reference)) {
      reference_row = true;  // `cpu` in --backends beside --reference cpu: the reference's row
      continue;
    }
    if (taken.insert(s.label).second) continue;
    for (int n = 2;; ++n)
      if (taken.insert(s.label + "-" + std::to_string(n)).second) {
        s.label += "-" + std::to_string(n);
        break;
      }
  }
  return ok_status();
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
  if (!valid_name(spec.ep)) return spec_error(text, "bad name");
  if (!valid_label(spec.label))
    return spec_error(text, "label '" + spec.label + "' is not a name",
                      "a label names report rows and files: up to 64 letters, digits, '-', '_' or '.', "
                      "starting with a letter or digit, e.g. noopt=cpu:opt=disabled");
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

namespace {

Result<std::vector<backend::BackendSpec>> parse_labelled(const std::string& text,
                                                         const backend::BackendSpec& defaults,
                                                         const backend::BackendSpec* reference) {
  std::vector<backend::BackendSpec> out;
  const auto items = split(text, ',');
  for (const auto& item : items) {
    if (item.empty()) return spec_error(text, "empty entry in the backend list");
    PARITY_ASSIGN_OR_RETURN(spec, parse_backend_spec(item, defaults));
    out.push_back(std::move(spec));
  }
  PARITY_TRY(label_apart(text, items, out, reference));
  return out;
}

}  // namespace

Result<std::vector<backend::BackendSpec>> parse_backend_list(const std::string& text,
                                                             const backend::BackendSpec& defaults) {
  return parse_labelled(text, defaults, nullptr);
}

Result<std::vector<backend::BackendSpec>> parse_backends_beside(const std::string& text,
                                                                const std::string& reference_text,
                                                                const backend::BackendSpec& defaults) {
  PARITY_ASSIGN_OR_RETURN(reference, parse_backend_spec(reference_text, defaults));
  return parse_labelled(text, defaults, &reference);
}

void reference_settings(backend::BackendSpec& spec, const std::string& text) {
  // The user's own choice of optimizer settings stands (its spread is then measured: probe.h).
  if (text.find(":opt=") != std::string::npos) return;
  for (const auto& key : probe::lossy_rewrite_keys())
    if (text.find(":so." + key + "=") != std::string::npos) return;
  probe::turn_lossy_rewrites_off(spec);
}

Result<backend::BackendSpec> parse_reference_spec(const std::string& text,
                                                  const backend::BackendSpec& defaults) {
  PARITY_ASSIGN_OR_RETURN(spec, parse_backend_spec(text, defaults));
  reference_settings(spec, text);
  return spec;
}

}  // namespace parity::cli
