#include "bisect/replay_trust.h"

#include <algorithm>
#include <cctype>

namespace parity::bisect {
namespace {

constexpr const char* kPass = " not used: pass --trust-repro to ";

// A release number such as "1.22.0" or "1.23.0-dev.1"; anything else (a '/', "..") is a folder.
bool is_version(const std::string& s) {
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) && s.find("..") == std::string::npos &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '.' || c == '-' || c == '+' || c == '_';
         });
}

bool is_named_adapter(const std::string& s) { return s == "auto" || s == "system" || s == "swiftshader"; }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// An EP option or session entry that can name a file to load or write: its value looks like a
// path or a library, or its key says it holds one (trt_engine_cache_path, backend_path,
// ep.context_file_path, cache_dir, ...; ep.context_enable writes a context model).
bool names_a_file(const std::string& key, const std::string& value) {
  const std::string k = lower(key), v = lower(value);
  for (const char* word : {"path", "file", "dir", "folder", "lib", "dump", "ep.context", "cache_enable"})
    if (k.find(word) != std::string::npos) return true;
  if (v.find('/') != std::string::npos || v.find('\\') != std::string::npos || v.rfind('~', 0) == 0)
    return true;
  for (const char* ext : {".so", ".dll", ".dylib", ".json", ".onnx"})
    if (v.find(ext) != std::string::npos) return true;
  return false;
}

}  // namespace

ReplaySpec replay_spec(const backend::BackendSpec& recorded, const backend::BackendSpec& given, bool trust) {
  ReplaySpec out{recorded, {}};
  backend::BackendSpec& s = out.spec;
  // A runtime named by the user replaces the recorded one either way: that is how a user checks
  // whether a newer ONNX Runtime or onnxruntime-web fixed the bug.
  if (!given.ort_lib.empty()) s.ort_lib = given.ort_lib;
  if (!given.ort_web.empty()) s.ort_web = given.ort_web;
  if (!given.browser.empty()) s.browser = given.browser;
  if (!given.browser_args.empty()) s.browser_args = given.browser_args;
  if (trust) return out;

  auto refuse = [&](const std::string& what, const std::string& value, const char* verb) {
    out.not_used.push_back("recorded " + what + " " + value + kPass + verb);
  };
  if (s.ort_lib != given.ort_lib) {
    refuse("ort_lib", s.ort_lib, "load it");
    s.ort_lib = given.ort_lib;
  }
  if (s.browser != given.browser) {
    refuse("browser", s.browser, "run it");
    s.browser = given.browser;
  }
  if (s.browser_args != given.browser_args) {
    for (const auto& a : s.browser_args)
      if (std::find(given.browser_args.begin(), given.browser_args.end(), a) == given.browser_args.end())
        refuse("Chromium flag", a, "pass it");
    s.browser_args = given.browser_args;
  }
  if (s.ort_web != given.ort_web && !is_version(s.ort_web)) {
    refuse("ort_web folder", s.ort_web, "load it");
    s.ort_web = given.ort_web;
  }
  if (!is_named_adapter(s.webgpu_adapter) && s.webgpu_adapter != given.webgpu_adapter) {
    refuse("adapter", s.webgpu_adapter, "load its Vulkan driver");
    s.webgpu_adapter = given.webgpu_adapter;
  }
  if (!s.optimized_model_path.empty() && s.optimized_model_path != given.optimized_model_path) {
    refuse("save-optimized", s.optimized_model_path, "write it");
    s.optimized_model_path = given.optimized_model_path;
  }
  const auto drop_files = [&](backend::KeyValues& kv, const std::string& what) {
    std::erase_if(kv, [&](const auto& e) {
      if (!names_a_file(e.first, e.second)) return false;
      refuse(what, e.first + "=" + e.second, "use it");
      return true;
    });
  };
  drop_files(s.provider_options, "EP option");
  drop_files(s.session_config, "session entry");
  return out;
}

}  // namespace parity::bisect
