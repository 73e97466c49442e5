#include "cli/common_options.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

#include "core/number_text.h"
#include "core/terminal_text.h"
#include "probe/input_plan.h"

namespace parity::cli {

backend::BackendSpec CommonOptions::defaults() const {
  backend::BackendSpec s;
  s.ort_lib = ort_lib;
  s.opt_level = opt_level;
  s.allow_fallback = allow_fallback;
  s.webgpu_adapter = webgpu_adapter;
  s.count_nodes = count_nodes;
  s.ort_web = !ort_web_dir.empty() ? ort_web_dir : ort_web_version;
  s.browser = chromium;
  s.browser_args = chromium_flags;
  return s;
}

std::vector<std::string> CommonOptions::as_flags() const {
  const CommonOptions d;
  std::vector<std::string> f;
  auto add = [&](const char* flag, const std::string& value, const std::string& default_value) {
    if (value != default_value) f.insert(f.end(), {flag, value});
  };
  add("--ort-lib", ort_lib, d.ort_lib);
  add("--opt-level", opt_level, d.opt_level);
  if (allow_fallback != d.allow_fallback) f.push_back(allow_fallback ? "--fallback" : "--no-fallback");
  add("--webgpu-adapter", webgpu_adapter, d.webgpu_adapter);
  if (timeout_s != d.timeout_s) f.insert(f.end(), {"--timeout", fmt::format("{}", timeout_s)});
  add("--max-memory", max_memory, d.max_memory);
  add("--ort-web-version", ort_web_version, d.ort_web_version);
  add("--ort-web-dir", ort_web_dir, d.ort_web_dir);
  add("--chromium", chromium, d.chromium);
  for (const auto& flag : chromium_flags) f.push_back("--chromium-flag=" + flag);
  return f;
}

Result<isolate::IsolationLimits> CommonOptions::limits() const {
  isolate::IsolationLimits l;
  if (!(timeout_s > 0))
    return make_error(ErrorKind::bad_input, Stage::parse_args,
                      "--timeout must be a positive number of seconds");
  l.timeout_s = timeout_s;
  if (!max_memory.empty()) {
    PARITY_ASSIGN_OR_RETURN(bytes, parse_size(max_memory, "--max-memory"));
    l.max_memory_bytes = bytes;
  }
  return l;
}

Result<uint64_t> parse_size(const std::string& text, const std::string& flag) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    used = 0;
  }
  uint64_t unit = uint64_t{1} << 20;
  std::string suffix = text.substr(used);
  if (!suffix.empty()) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'K': unit = uint64_t{1} << 10; break;
      case 'M': unit = uint64_t{1} << 20; break;
      case 'G': unit = uint64_t{1} << 30; break;
      case 'T': unit = uint64_t{1} << 40; break;
      default: used = 0;
    }
    if (suffix.size() > 1 && suffix.substr(1) != "B" && suffix.substr(1) != "iB" && suffix.substr(1) != "b")
      used = 0;
  }
  if (used == 0 || v <= 0)
    return make_error(ErrorKind::bad_input, Stage::parse_args, flag + " '" + text + "' is not a size",
                      "write it like 4G, 512M or 2048 (MiB)");
  return static_cast<uint64_t>(v * static_cast<double>(unit));
}

std::function<void(const std::string&)> progress_for(const CommonOptions& o) {
  if (o.quiet) return {};
  return print_progress;
}

void print_progress(const std::string& line) {
  std::fprintf(stderr, "parity: %s\n", terminal_safe(line).c_str());
}

void add_reference_option(CLI::App& cmd, std::string& reference) {
  cmd.add_option("--reference", reference, "backend spec whose values count as right")->capture_default_str();
}

std::optional<Tolerance> ToleranceArgs::fixed() const {
  if (!atol && !rtol) return std::nullopt;
  return fixed_tolerance(atol.value_or(0), rtol.value_or(0));
}

void add_tolerance_options(CLI::App& cmd, ToleranceArgs& t, const std::string& what) {
  cmd.add_option("--atol", t.atol, "absolute tolerance for " + what + " (default: by dtype, scale-aware)");
  cmd.add_option("--rtol", t.rtol, "relative tolerance for " + what + " (default: by dtype, scale-aware)");
}

namespace {
// A validator from a checked parser: CLI11 wants "" for good and the message otherwise.
template <class Parse>
CLI::Validator checked(std::string description, Parse parse) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        auto r = parse(text);
        return r.ok() ? std::string() : r.error().message;
      },
      std::move(description));
}
}  // namespace

CLI::Validator finite_number() {
  return checked("NUMBER", [](const std::string& t) { return parse_finite(t, "the value"); });
}

CLI::Validator whole_number(uint64_t max) {
  return checked("N", [max](const std::string& t) { return parse_unsigned(t, "the value", max); });
}

CLI::Validator seed_number() {
  return checked("SEED", [](const std::string& t) { return parse_unsigned(t, "the seed"); });
}

void check_option_values(CLI::App& cmd) {
  const std::pair<const char*, CLI::Validator> table[] = {
      {"--atol", finite_number()},    {"--rtol", finite_number()},
      {"--timeout", finite_number()}, {"--time-budget", finite_number()},
      {"--seed", seed_number()},      {"--cell", whole_number(~uint64_t{0} >> 1)},
      {"--cases", whole_number()},    {"--first-case", whole_number()},
      {"--jobs", whole_number()},     {"--samples", whole_number()},
      {"--json", file_path()},        {"--html", file_path()},
      {"--markdown", file_path()},    {"--out", file_path()},
  };
  for (const auto& [name, validator] : table)
    if (CLI::Option* o = cmd.get_option_no_throw(name)) o->check(validator);
  for (CLI::App* sub : cmd.get_subcommands([](CLI::App*) { return true; })) check_option_values(*sub);
}

CLI::Validator file_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "an empty path names no file (leave the option out to write none)" : "";
      },
      "FILE");
}

Result<std::vector<std::pair<std::string, Tolerance>>> parse_tolerance_list(
    const std::vector<std::string>& tols, const std::string& flag_help) {
  std::vector<std::pair<std::string, Tolerance>> out;
  for (const auto& t : tols) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(t, "--tol"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_number_list(kv.second, "--tol " + kv.first));
    if (v.size() != 2 || v[0] < 0 || v[1] < 0)
      return make_error(ErrorKind::bad_input, Stage::parse_args,
                        "--tol " + t + ": expects " + flag_help + " (non-negative)");
    out.emplace_back(kv.first, fixed_tolerance(v[0], v[1]));
  }
  return out;
}

void add_switch(CLI::App& cmd, const std::string& name, bool& value, const std::string& help) {
  // Two plain flags, not CLI11's "--x,!--no-x", whose help shows "{false}" whatever the default is.
  cmd.add_flag_callback(
      "--" + name, [&value] { value = true; }, help + (value ? " (default: on)" : " (default: off)"));
  cmd.add_flag_callback(
      "--no-" + name, [&value] { value = false; }, "the opposite of --" + name);
}

void add_common_options(CLI::App& cmd, CommonOptions& o) {
  cmd.add_option("--ort-lib", o.ort_lib,
                 "ONNX Runtime library (libonnxruntime.so) for every backend without its own ort-lib= key; "
                 "default: the bundled 1.30.0")
      ->envname("PARITY_ORT_LIB");
  cmd.add_option("--opt-level", o.opt_level, "graph optimization level for every backend")
      ->check(CLI::IsMember({"all", "extended", "basic", "disabled"}))
      ->capture_default_str();
  add_switch(
      cmd, "fallback", o.allow_fallback,
      "allow nodes the EP cannot take to run on CPU (--no-fallback makes session creation fail instead)");
  cmd.add_option("--webgpu-adapter", o.webgpu_adapter,
                 "Vulkan driver for webgpu: auto (hardware if any, else SwiftShader), system, swiftshader, "
                 "or the path of an ICD manifest json")
      ->envname("PARITY_WEBGPU_ADAPTER")
      ->capture_default_str();
  add_switch(cmd, "count-nodes", o.count_nodes, "profile one run to count the nodes each EP really ran");
  cmd.add_option("--timeout", o.timeout_s, "seconds one backend worker may take before it is killed")
      ->envname("PARITY_TIMEOUT")
      ->capture_default_str();
  cmd.add_option("--max-memory", o.max_memory,
                 "memory cap per worker, e.g. 4G or 512M (plain numbers are MiB)")
      ->envname("PARITY_MAX_MEMORY");
  auto* web_version =
      cmd.add_option("--ort-web-version", o.ort_web_version,
                     "onnxruntime-web release for browser backends without their own ort-web= key "
                     "(fetched into third_party/ by scripts/fetch_ort_web.sh VERSION; default 1.30.0)")
          ->envname("PARITY_ORT_WEB_VERSION");
  cmd.add_option("--ort-web-dir", o.ort_web_dir,
                 "an unpacked onnxruntime-web package (or its dist/ folder) for browser backends")
      ->envname("PARITY_ORT_WEB_DIR")
      ->excludes(web_version);
  cmd.add_option("--chromium", o.chromium,
                 "Chromium executable for browser backends (default /usr/lib/chromium/chromium)")
      ->envname("PARITY_CHROMIUM");
  cmd.add_option("--chromium-flag", o.chromium_flags,
                 "extra Chromium flag for browser backends, e.g. --chromium-flag=--use-vulkan (repeatable)")
      ->allow_extra_args(false);
  cmd.add_option("--json", o.json_path, "also write the result as JSON to FILE ('-' for stdout)");
  cmd.add_flag("-q,--quiet", o.quiet, "no progress lines on stderr");
}

}  // namespace parity::cli
