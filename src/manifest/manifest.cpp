#include "manifest/manifest.h"

#include <toml++/toml.h>

#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>

#include "core/file_io.h"
#include "core/json_io.h"

namespace parity::manifest {
namespace {

using nlohmann::json;
using Lines = std::map<std::string, int>;  // "/backends/webgpu/enabled" -> line

// --- writing ---------------------------------------------------------------------------------------

json evidence_to_json(const Evidence& e) {
  json j{{"cell", e.cell}, {"status", e.status}};
  if (e.max_abs) j["max_abs"] = json_number(*e.max_abs);
  if (e.cosine) j["cosine"] = json_number(*e.cosine);
  for (auto [key, value] : {std::pair{"ort_version", &e.ort_version},
                            {"adapter", &e.adapter},
                            {"date", &e.date},
                            {"size", &e.size},
                            {"variant", &e.variant},
                            {"file", &e.file},
                            {"sha256", &e.sha256},
                            {"precision", &e.precision},
                            {"graph_optimization", &e.graph_optimization}})
    if (!value->empty()) j[key] = *value;
  return j;
}

// Only what differs from the defaults: most backends have an empty runtime table, left out.
json runtime_to_json(const Runtime& r) {
  const Runtime d;
  json j = json::object();
  for (auto [key, value, fallback] : {std::tuple{"ort_lib", &r.ort_lib, &d.ort_lib},
                                      {"ort_web", &r.ort_web, &d.ort_web},
                                      {"adapter", &r.adapter, &d.adapter},
                                      {"browser", &r.browser, &d.browser},
                                      {"log_level", &r.log_level, &d.log_level},
                                      {"vulkan_faults", &r.vulkan_faults, &d.vulkan_faults}})
    if (*value != *fallback) j[key] = *value;
  for (auto [key, value, fallback] : {std::tuple{"fallback", r.fallback, d.fallback},
                                      {"count_nodes", r.count_nodes, d.count_nodes},
                                      {"check_features", r.check_features, d.check_features}})
    if (value != fallback) j[key] = value;
  if (r.threads != d.threads) j["threads"] = r.threads;
  if (r.max_memory_bytes != d.max_memory_bytes) j["max_memory_bytes"] = r.max_memory_bytes;
  if (!r.browser_args.empty()) j["browser_args"] = r.browser_args;
  return j;
}

json reference_to_json(const Reference& r) {
  json j{{"ep", r.ep}, {"graph_optimization", r.graph_optimization}};
  if (!r.provider_options.empty()) j["provider_options"] = r.provider_options;
  if (!r.session_options.empty()) j["session_options"] = r.session_options;
  if (json runtime = runtime_to_json(r.runtime); !runtime.empty()) j["runtime"] = runtime;
  return j;
}

json inputs_to_json(const Inputs& in) {
  // TOML integers are signed 64-bit: a larger seed is written as a string of digits.
  json j{{"seed", in.seed <= uint64_t(INT64_MAX) ? json(in.seed) : json(std::to_string(in.seed))},
         {"samples", in.samples}};
  if (!in.dims.empty()) j["dims"] = in.dims;
  if (!in.shapes.empty()) j["shapes"] = in.shapes;
  for (const auto& [name, r] : in.ranges) j["ranges"][name] = {r.first, r.second};
  if (!in.files.empty()) j["files"] = in.files;
  if (!in.file_sha256.empty()) j["file_sha256"] = in.file_sha256;
  for (const auto& [name, hw] : in.resize) j["resize"][name] = {hw.first, hw.second};
  if (!in.load_io.empty()) j["load_io"] = in.load_io;
  if (in.max_input_bytes) j["max_input_bytes"] = in.max_input_bytes;
  return j;
}

json sweep_to_json(const SweepSetup& s) {
  json j{{"reference", reference_to_json(s.reference)},
         {"inputs", inputs_to_json(s.inputs)},
         {"timeout_s", s.timeout_s}};
  if (s.max_memory_bytes) j["max_memory_bytes"] = s.max_memory_bytes;
  return j;
}

json checks_to_json(const Checks& c) {
  json j{{"finite", c.finite}};
  if (c.mean_shift) j["mean_shift"] = *c.mean_shift;
  if (c.per_channel) j["per_channel"] = true;
  if (c.range) j["range"] = {c.range->first, c.range->second};
  if (c.max_zero_fraction) j["max_zero_fraction"] = *c.max_zero_fraction;
  if (c.max_zero_fraction || c.grid != Checks{}.grid) j["grid"] = c.grid;
  if (c.scale) j["scale"] = *c.scale;
  if (!c.input.empty()) j["input"] = c.input;
  if (!c.output.empty()) j["output"] = c.output;
  return j;
}

json guard_to_json(const GuardSettings& g) {
  json j{{"retries", g.retries}, {"overlap", g.overlap}, {"preflight", g.preflight}};
  if (!g.order.empty()) j["order"] = g.order;
  return j;
}

json declaration_to_json(const Declaration& d) {
  json j{{"ep", d.ep}, {"enabled", d.enabled}};
  auto put = [&j](const char* key, const std::string& v) {
    if (!v.empty()) j[key] = v;
  };
  put("reason", d.reason);
  put("variant", d.variant);
  put("file", d.file);
  put("sha256", d.sha256);
  put("precision", d.precision);
  put("graph_optimization", d.graph_optimization);
  put("max_size", d.max_size);
  put("size_budget", d.size_budget);
  if (d.largest_weight_bytes > 0) j["largest_weight_bytes"] = d.largest_weight_bytes;
  if (!d.provider_options.empty()) j["provider_options"] = d.provider_options;
  if (!d.session_options.empty()) j["session_options"] = d.session_options;
  if (json runtime = runtime_to_json(d.runtime); !runtime.empty()) j["runtime"] = runtime;
  if (d.evidence) j["evidence"] = evidence_to_json(*d.evidence);
  if (d.checks) j["checks"] = checks_to_json(*d.checks);
  return j;
}

// JSON (as manifests hold it: strings, numbers, bools, arrays of those, objects) to a TOML node.
toml::table to_toml_table(const json& j);
toml::array to_toml_array(const json& j) {
  toml::array a;
  for (const auto& v : j) {
    if (v.is_array()) {
      a.push_back(to_toml_array(v));
    } else if (v.is_boolean()) {
      a.push_back(v.get<bool>());
    } else if (v.is_number_integer() || v.is_number_unsigned()) {
      a.push_back(v.get<int64_t>());
    } else if (v.is_number()) {
      a.push_back(v.get<double>());
    } else if (v.is_string()) {
      a.push_back(v.get<std::string>());
    }
  }
  return a;
}
void insert_toml(toml::table& t, const std::string& key, const json& v) {
  if (v.is_object()) {
    t.insert(key, to_toml_table(v));
  } else if (v.is_array()) {
    t.insert(key, to_toml_array(v));
  } else if (v.is_boolean()) {
    t.insert(key, v.get<bool>());
  } else if (v.is_number_integer() || v.is_number_unsigned()) {
    t.insert(key, v.get<int64_t>());
  } else if (v.is_number()) {
    t.insert(key, v.get<double>());
  } else if (v.is_string()) {
    t.insert(key, v.get<std::string>());
  }  // null: absent in TOML
}
toml::table to_toml_table(const json& j) {
  toml::table t;
  for (const auto& [key, v] : j.items()) insert_toml(t, key, v);
  return t;
}

// --- reading ---------------------------------------------------------------------------------------

json toml_to_json(const toml::node& node, const std::string& path, Lines& lines) {
  lines[path] = static_cast<int>(node.source().begin.line);
  if (const auto* t = node.as_table()) {
    json j = json::object();
    for (const auto& [key, child] : *t)
      j[std::string(key.str())] = toml_to_json(child, path + "/" + std::string(key.str()), lines);
    return j;
  }
  if (const auto* a = node.as_array()) {
    json j = json::array();
    for (std::size_t i = 0; i < a->size(); ++i)
      j.push_back(toml_to_json(*a->get(i), path + "/" + std::to_string(i), lines));
    return j;
  }
  if (auto v = node.value<bool>(); node.is_boolean()) return *v;
  if (auto v = node.value<int64_t>(); node.is_integer()) return *v;
  if (auto v = node.value<double>(); node.is_floating_point()) return *v;
  if (auto v = node.value<std::string>()) return *v;
  return json(node.is_date() || node.is_time() || node.is_date_time() ? "date" : "?");
}

struct Checker {
  const Lines& lines;
  std::vector<Problem> problems;

  void problem(const std::string& path, std::string message) {
    auto it = lines.find(path);
    problems.push_back({it == lines.end() ? 0 : it->second, path + ": " + std::move(message)});
  }
  void unknown_keys(const json& j, const std::string& path, std::initializer_list<const char*> known) {
    for (const auto& [key, v] : j.items()) {
      bool ok = false;
      for (const char* k : known) ok = ok || key == k;
      if (!ok) problem(path + "/" + key, "unknown key (known: " + join(known) + ")");
    }
  }
  static std::string join(std::initializer_list<const char*> keys) {
    std::string s;
    for (const char* k : keys) s += (s.empty() ? "" : ", ") + std::string(k);
    return s;
  }
  // The string at j[key] (a problem when present with another type, or absent and `required`).
  std::string text(const json& j, const std::string& path, const char* key, bool required) {
    if (!j.contains(key)) {
      if (required) problem(path + "/" + key, "missing");
      return "";
    }
    if (!j[key].is_string()) {
      problem(path + "/" + key, "must be a string");
      return "";
    }
    return j[key].get<std::string>();
  }
  std::map<std::string, std::string> strings(const json& j, const std::string& path, const char* key) {
    std::map<std::string, std::string> out;
    if (!j.contains(key)) return out;
    if (!j[key].is_object()) {
      problem(path + "/" + key, "must be a table of strings");
      return out;
    }
    for (const auto& [k, v] : j[key].items()) {
      if (v.is_string())
        out[k] = v.get<std::string>();
      else
        problem(path + "/" + key + "/" + k, "must be a string");
    }
    return out;
  }

  // A problem when the value at j[key] is present and not a boolean; `fallback` when absent.
  bool boolean(const json& j, const std::string& path, const char* key, bool fallback) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_boolean()) {
      problem(path + "/" + key, "must be true or false");
      return fallback;
    }
    return j[key].get<bool>();
  }
  // An integer >= `min` at j[key]; `fallback` when absent (or wrong: a problem).
  int64_t integer(const json& j, const std::string& path, const char* key, int64_t min, int64_t fallback) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number_integer() || j[key].get<int64_t>() < min) {
      problem(path + "/" + key, "must be an integer >= " + std::to_string(min));
      return fallback;
    }
    return j[key].get<int64_t>();
  }
  void graph_optimization(const std::string& path, const std::string& value) {
    if (!value.empty() && value != "all" && value != "extended" && value != "basic" && value != "disabled")
      problem(path, "must be all, extended, basic or disabled, not '" + value + "'");
  }
  void sha256(const std::string& path, const std::string& value) {
    static const std::regex hex("[0-9a-f]{64}");
    if (!value.empty() && !std::regex_match(value, hex)) problem(path, "must be 64 hex digits");
  }
  void size_label(const std::string& path, const std::string& value) {
    static const std::regex size("[^=]+=[0-9]+x[0-9]+");
    if (!value.empty() && !std::regex_match(value, size))
      problem(path, "must read INPUT=HEIGHTxWIDTH, e.g. x=320x320");
  }
  // A table of NAME = [N, N, ...] (integers; exactly `arity` of them unless 0).
  std::map<std::string, std::vector<int64_t>> int_lists(const json& j, const std::string& path,
                                                        const char* key, std::size_t arity,
                                                        const char* what) {
    std::map<std::string, std::vector<int64_t>> out;
    if (!j.contains(key)) return out;
    if (!j[key].is_object()) {
      problem(path + "/" + key, std::string("must be a table of ") + what);
      return out;
    }
    for (const auto& [name, v] : j[key].items()) {
      bool ok = v.is_array() && (arity == 0 || v.size() == arity);
      for (const auto& e : v) ok = ok && e.is_number_integer();
      if (ok)
        out[name] = v.get<std::vector<int64_t>>();
      else
        problem(path + "/" + key + "/" + name, std::string("must be ") + what);
    }
    return out;
  }

  Runtime runtime(const json& j, const std::string& path) {
    Runtime r;
    if (!j.is_object()) {
      problem(path, "must be a table");
      return r;
    }
    unknown_keys(j, path,
                 {"ort_lib", "ort_web", "fallback", "adapter", "threads", "max_memory_bytes", "count_nodes",
                  "browser", "browser_args", "log_level", "check_features", "vulkan_faults"});
    for (auto [field, key] : {std::pair{&r.ort_lib, "ort_lib"},
                              {&r.vulkan_faults, "vulkan_faults"},
                              {&r.ort_web, "ort_web"},
                              {&r.browser, "browser"},
                              {&r.log_level, "log_level"}})
      *field = text(j, path, key, false);
    if (j.contains("adapter")) r.adapter = text(j, path, "adapter", false);
    r.fallback = boolean(j, path, "fallback", r.fallback);
    r.count_nodes = boolean(j, path, "count_nodes", r.count_nodes);
    r.check_features = boolean(j, path, "check_features", r.check_features);
    r.threads = static_cast<int>(integer(j, path, "threads", 0, 0));
    r.max_memory_bytes = static_cast<uint64_t>(integer(j, path, "max_memory_bytes", 0, 0));
    if (j.contains("browser_args")) {
      const json& a = j["browser_args"];
      bool ok = a.is_array();
      for (const auto& e : a) ok = ok && e.is_string();
      if (ok)
        r.browser_args = a.get<std::vector<std::string>>();
      else
        problem(path + "/browser_args", "must be an array of strings");
    }
    return r;
  }

  Reference reference(const json& j, const std::string& path) {
    Reference r;
    if (!j.is_object()) {
      problem(path, "must be a table");
      return r;
    }
    unknown_keys(j, path, {"ep", "graph_optimization", "provider_options", "session_options", "runtime"});
    r.ep = text(j, path, "ep", true);
    r.graph_optimization = text(j, path, "graph_optimization", true);
    graph_optimization(path + "/graph_optimization", r.graph_optimization);
    r.provider_options = strings(j, path, "provider_options");
    r.session_options = strings(j, path, "session_options");
    if (j.contains("runtime")) r.runtime = runtime(j["runtime"], path + "/runtime");
    return r;
  }

  Inputs inputs(const json& j, const std::string& path) {
    Inputs in;
    if (!j.is_object()) {
      problem(path, "must be a table");
      return in;
    }
    unknown_keys(j, path,
                 {"seed", "samples", "dims", "shapes", "ranges", "files", "file_sha256", "resize", "load_io",
                  "max_input_bytes"});
    if (j.contains("seed") && j["seed"].is_string() &&
        std::regex_match(j["seed"].get<std::string>(), std::regex("[0-9]{1,20}")))
      in.seed = std::stoull(j["seed"].get<std::string>());
    else
      in.seed = static_cast<uint64_t>(integer(j, path, "seed", 0, 0));
    in.samples = static_cast<int>(integer(j, path, "samples", 1, 1));
    if (j.contains("dims")) {
      if (!j["dims"].is_object()) problem(path + "/dims", "must be a table of SYMBOL = N");
      for (const auto& [name, v] : object_or_empty(j["dims"]).items()) {
        if (v.is_number_integer() && v.get<int64_t>() > 0)
          in.dims[name] = v.get<int64_t>();
        else
          problem(path + "/dims/" + name, "must be an integer > 0");
      }
    }
    in.shapes = int_lists(j, path, "shapes", 0, "an array of dims, e.g. [1, 3, 224, 224]");
    for (const auto& [name, hw] : int_lists(j, path, "resize", 2, "[HEIGHT, WIDTH]"))
      in.resize[name] = {hw[0], hw[1]};
    if (j.contains("ranges")) {
      if (!j["ranges"].is_object()) problem(path + "/ranges", "must be a table of INPUT = [LO, HI]");
      for (const auto& [name, v] : object_or_empty(j["ranges"]).items()) {
        if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number())
          in.ranges[name] = {v[0].get<double>(), v[1].get<double>()};
        else
          problem(path + "/ranges/" + name, "must be [LO, HI]");
      }
    }
    in.files = strings(j, path, "files");
    in.file_sha256 = strings(j, path, "file_sha256");
    for (const auto& [name, hash] : in.file_sha256) {
      sha256(path + "/file_sha256/" + name, hash);
      if (!in.files.count(name)) problem(path + "/file_sha256/" + name, "names no input of `files`");
    }
    in.load_io = text(j, path, "load_io", false);
    in.max_input_bytes = static_cast<uint64_t>(integer(j, path, "max_input_bytes", 0, 0));
    return in;
  }

  std::optional<SweepSetup> sweep(const json& j, const std::string& path) {
    if (!j.is_object()) {
      problem(path, "must be a table");
      return std::nullopt;
    }
    unknown_keys(j, path, {"reference", "inputs", "timeout_s", "max_memory_bytes"});
    SweepSetup s;
    if (!j.contains("reference")) problem(path + "/reference", "missing");
    if (!j.contains("inputs")) problem(path + "/inputs", "missing");
    if (j.contains("reference")) s.reference = reference(j["reference"], path + "/reference");
    if (j.contains("inputs")) s.inputs = inputs(j["inputs"], path + "/inputs");
    if (j.contains("timeout_s")) {
      if (j["timeout_s"].is_number() && j["timeout_s"].get<double>() > 0)
        s.timeout_s = j["timeout_s"].get<double>();
      else
        problem(path + "/timeout_s", "must be a number of seconds > 0");
    }
    s.max_memory_bytes = static_cast<uint64_t>(integer(j, path, "max_memory_bytes", 0, 0));
    return s;
  }

  std::optional<Evidence> evidence(const json& j, const std::string& path, bool enabled) {
    if (!j.is_object()) {
      problem(path, "must be a table");
      return std::nullopt;
    }
    unknown_keys(j, path,
                 {"cell", "status", "max_abs", "cosine", "ort_version", "adapter", "date", "size", "variant",
                  "file", "sha256", "precision", "graph_optimization"});
    Evidence e;
    if (!j.contains("cell") || !j["cell"].is_number_integer() || j["cell"].get<int64_t>() < 0)
      problem(path + "/cell", "must be the sweep cell number (an integer >= 0)");
    else
      e.cell = j["cell"].get<std::size_t>();
    e.status = text(j, path, "status", true);
    for (const char* key : {"max_abs", "cosine"}) {
      if (!j.contains(key)) continue;
      const auto v = number_from_json(j[key]);
      if (!v) problem(path + "/" + key, "must be a number (or \"nan\", \"inf\")");
      (std::string(key) == "max_abs" ? e.max_abs : e.cosine) = v;
    }
    e.ort_version = text(j, path, "ort_version", false);
    e.adapter = text(j, path, "adapter", false);
    e.date = text(j, path, "date", false);
    e.size = text(j, path, "size", false);
    size_label(path + "/size", e.size);
    for (auto [field, key] : {std::pair{&e.variant, "variant"},
                              {&e.file, "file"},
                              {&e.sha256, "sha256"},
                              {&e.precision, "precision"},
                              {&e.graph_optimization, "graph_optimization"}}) {
      *field = text(j, path, key, false);
      if (enabled && !field->empty())
        problem(path + "/" + key,
                "only a disabled backend's evidence names its file (an enabled one's is the "
                "declaration's own)");
    }
    sha256(path + "/sha256", e.sha256);
    graph_optimization(path + "/graph_optimization", e.graph_optimization);
    return e;
  }

  Checks checks(const json& j, const std::string& path) {
    Checks c;
    if (!j.is_object()) {
      problem(path, "must be a table");
      return c;
    }
    unknown_keys(j, path,
                 {"finite", "mean_shift", "per_channel", "range", "max_zero_fraction", "grid", "scale",
                  "input", "output"});
    c.finite = boolean(j, path, "finite", c.finite);
    c.per_channel = boolean(j, path, "per_channel", c.per_channel);
    c.mean_shift = fraction(j, path, "mean_shift", false);
    c.max_zero_fraction = fraction(j, path, "max_zero_fraction", true);
    if (j.contains("range")) {
      const json& v = j["range"];
      if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() &&
          v[0].get<double>() <= v[1].get<double>())
        c.range = std::pair{v[0].get<double>(), v[1].get<double>()};
      else
        problem(path + "/range", "must be [LO, HI] with LO <= HI");
    }
    c.grid = static_cast<int>(integer(j, path, "grid", 1, c.grid));
    if (j.contains("scale")) c.scale = integer(j, path, "scale", 1, 1);
    c.input = text(j, path, "input", false);
    c.output = text(j, path, "output", false);
    return c;
  }
  // A number >= 0 at j[key] (<= 1 when `at_most_one`); nullopt when absent (or wrong: a problem).
  std::optional<double> fraction(const json& j, const std::string& path, const char* key, bool at_most_one) {
    if (!j.contains(key)) return std::nullopt;
    if (!j[key].is_number() || j[key].get<double>() < 0 || (at_most_one && j[key].get<double>() > 1)) {
      problem(path + "/" + key, at_most_one ? "must be a number in [0, 1]" : "must be a number >= 0");
      return std::nullopt;
    }
    return j[key].get<double>();
  }

  GuardSettings guard(const json& j, const std::string& path) {
    GuardSettings g;
    if (!j.is_object()) {
      problem(path, "must be a table");
      return g;
    }
    unknown_keys(j, path, {"order", "retries", "overlap", "preflight"});
    if (j.contains("order")) {
      const json& a = j["order"];
      bool ok = a.is_array();
      for (const auto& e : a) ok = ok && e.is_string();
      if (ok)
        g.order = a.get<std::vector<std::string>>();
      else
        problem(path + "/order", "must be an array of backend labels");
    }
    g.retries = static_cast<int>(integer(j, path, "retries", 0, g.retries));
    g.overlap = static_cast<int>(integer(j, path, "overlap", 0, g.overlap));
    g.preflight = boolean(j, path, "preflight", g.preflight);
    return g;
  }

  Declaration declaration(const std::string& label, const json& j, const std::string& path) {
    Declaration d;
    d.backend = label;
    if (!j.is_object()) {
      problem(path, "must be a table");
      return d;
    }
    unknown_keys(j, path,
                 {"ep", "enabled", "reason", "variant", "file", "sha256", "precision", "graph_optimization",
                  "max_size", "size_budget", "largest_weight_bytes", "provider_options", "session_options",
                  "runtime", "evidence", "checks"});
    d.ep = text(j, path, "ep", true);
    if (!j.contains("enabled") || !j["enabled"].is_boolean())
      problem(path + "/enabled", "must be true or false");
    else
      d.enabled = j["enabled"].get<bool>();
    d.reason = text(j, path, "reason", !d.enabled);
    for (auto [field, key] : {std::pair{&d.variant, "variant"},
                              {&d.file, "file"},
                              {&d.sha256, "sha256"},
                              {&d.precision, "precision"},
                              {&d.graph_optimization, "graph_optimization"}})
      *field = text(j, path, key, d.enabled);
    sha256(path + "/sha256", d.sha256);
    graph_optimization(path + "/graph_optimization", d.graph_optimization);
    d.max_size = text(j, path, "max_size", false);
    size_label(path + "/max_size", d.max_size);
    d.size_budget = text(j, path, "size_budget", false);
    size_label(path + "/size_budget", d.size_budget);
    d.largest_weight_bytes = static_cast<uint64_t>(integer(j, path, "largest_weight_bytes", 0, 0));
    d.provider_options = strings(j, path, "provider_options");
    d.session_options = strings(j, path, "session_options");
    if (j.contains("runtime")) d.runtime = runtime(j["runtime"], path + "/runtime");
    if (j.contains("evidence")) d.evidence = evidence(j["evidence"], path + "/evidence", d.enabled);
    if (j.contains("checks")) d.checks = checks(j["checks"], path + "/checks");
    return d;
  }

  Manifest manifest(const json& j) {
    Manifest m;
    unknown_keys(j, "",
                 {"schema", "model", "model_sha256", "parity_version", "created", "sweep", "backends",
                  "checks", "guard"});
    if (text(j, "", "schema", true) != kSchema && j.contains("schema"))
      problem("/schema", std::string("must be \"") + kSchema + "\" (this Parity reads version 1)");
    m.model = text(j, "", "model", true);
    m.model_sha256 = text(j, "", "model_sha256", false);
    sha256("/model_sha256", m.model_sha256);
    m.parity_version = text(j, "", "parity_version", false);
    m.created = text(j, "", "created", false);
    if (j.contains("sweep")) m.sweep = sweep(j["sweep"], "/sweep");
    if (!j.contains("backends") || !j["backends"].is_object() || j["backends"].empty()) {
      problem("/backends", "must be a table with one table per backend");
      return m;
    }
    for (const auto& [label, d] : j["backends"].items())
      m.backends.push_back(declaration(label, d, "/backends/" + label));
    if (j.contains("checks")) m.checks = checks(j["checks"], "/checks");
    if (j.contains("guard")) m.guard = guard(j["guard"], "/guard");
    for (std::size_t i = 0; i < m.guard.order.size(); ++i)
      if (!m.find(m.guard.order[i]))
        problem("/guard/order", "names '" + m.guard.order[i] + "', which no [backends] table declares");
    return m;
  }

  // j when it is an object, else an empty one (never a temporary: items() borrows it).
  static const json& object_or_empty(const json& j) {
    static const json empty = json::object();
    return j.is_object() ? j : empty;
  }
};

Error unreadable(const std::filesystem::path& path, const std::string& why) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, path.string() + ": " + why,
                    "a manifest is TOML (or JSON when the name ends in .json); see docs/manifest.md");
}

}  // namespace

nlohmann::json to_json(const Manifest& m) {
  json backends = json::object();
  for (const auto& d : m.backends) backends[d.backend] = declaration_to_json(d);
  json j{{"schema", kSchema},
         {"model", m.model},
         {"parity_version", m.parity_version},
         {"created", m.created},
         {"backends", backends}};
  if (!m.model_sha256.empty()) j["model_sha256"] = m.model_sha256;
  if (m.sweep) j["sweep"] = sweep_to_json(*m.sweep);
  if (m.checks) j["checks"] = checks_to_json(*m.checks);
  if (m.guard != GuardSettings{}) j["guard"] = guard_to_json(m.guard);
  return j;
}

std::string to_toml(const Manifest& m) {
  std::ostringstream out;
  out << "# Capability manifest written by parity manifest: per backend, the model file, optimization\n"
         "# level and size a sweep proved correct, and the evidence. Edit by hand if you must;\n"
         "# 'parity manifest check FILE' validates it. Schema: docs/manifest.md.\n\n"
      << to_toml_table(to_json(m)) << "\n";
  return out.str();
}

Status write_manifest(const Manifest& m, const std::filesystem::path& path) {
  return write_text_file(path, path.extension() == ".json" ? to_json(m).dump(2) + "\n" : to_toml(m));
}

Result<Checked> read_manifest(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    return make_error(ErrorKind::io, Stage::parse_args, path.string() + ": cannot read the manifest",
                      "check the path");
  Lines lines;
  json j;
  if (path.extension() == ".json") {
    j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return unreadable(path, "not a JSON object");
  } else {
    try {
      const toml::table doc = toml::parse_file(path.string());
      j = toml_to_json(doc, "", lines);
    } catch (const toml::parse_error& e) {
      return unreadable(
          path, "line " + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
    }
  }
  Checker checker{lines, {}};
  Checked out;
  out.manifest = checker.manifest(j);
  out.problems = std::move(checker.problems);
  return out;
}

Result<Manifest> Manifest::load(const std::filesystem::path& path) {
  PARITY_ASSIGN_OR_RETURN(checked, read_manifest(path));
  if (checked.problems.empty()) return std::move(checked.manifest);
  std::string list;
  for (const Problem& p : checked.problems)
    list += "\n  " + (p.line > 0 ? "line " + std::to_string(p.line) + ": " : std::string()) + p.message;
  return make_error(
      ErrorKind::bad_input, Stage::parse_args,
      path.string() + ": " + std::to_string(checked.problems.size()) + " problem(s) in the manifest:" + list,
      "fix them (parity manifest check " + path.string() + " lists the same); docs/manifest.md");
}

const Declaration* Manifest::find(const std::string& backend) const {
  for (const Declaration& d : backends)
    if (d.backend == backend) return &d;
  return nullptr;
}

std::filesystem::path resolve_recorded(const std::string& written,
                                       const std::filesystem::path& manifest_dir) {
  namespace fs = std::filesystem;
  const fs::path p(written);
  std::error_code ec;
  const fs::path first = p.is_absolute() || manifest_dir.empty() ? p : manifest_dir / p;
  if (fs::exists(first, ec)) return first;
  if (p.is_relative() && fs::exists(p, ec)) return p;
  if (const fs::path beside = manifest_dir / p.filename(); !manifest_dir.empty() && fs::exists(beside, ec))
    return beside;
  return first;
}

}  // namespace parity::manifest
