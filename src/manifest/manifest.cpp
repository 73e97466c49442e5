#include "manifest/manifest.h"

#include <toml++/toml.h>

#include <fstream>
#include <regex>
#include <sstream>

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
  for (auto [key, value] :
       {std::pair{"ort_version", &e.ort_version}, {"adapter", &e.adapter}, {"date", &e.date}})
    if (!value->empty()) j[key] = *value;
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
  if (!d.provider_options.empty()) j["provider_options"] = d.provider_options;
  if (!d.session_options.empty()) j["session_options"] = d.session_options;
  if (d.evidence) j["evidence"] = evidence_to_json(*d.evidence);
  return j;
}

// JSON (as manifests hold it: strings, numbers, bools, objects) to a TOML node.
toml::table to_toml_table(const json& j);
void insert_toml(toml::table& t, const std::string& key, const json& v) {
  if (v.is_object()) {
    t.insert(key, to_toml_table(v));
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

  std::optional<Evidence> evidence(const json& j, const std::string& path) {
    if (!j.is_object()) {
      problem(path, "must be a table");
      return std::nullopt;
    }
    unknown_keys(j, path, {"cell", "status", "max_abs", "cosine", "ort_version", "adapter", "date"});
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
    return e;
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
                  "max_size", "provider_options", "session_options", "evidence"});
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
    static const std::regex sha("[0-9a-f]{64}"), size("[^=]+=[0-9]+x[0-9]+");
    if (!d.sha256.empty() && !std::regex_match(d.sha256, sha))
      problem(path + "/sha256", "must be 64 hex digits");
    if (!d.graph_optimization.empty() && d.graph_optimization != "all" &&
        d.graph_optimization != "extended" && d.graph_optimization != "basic" &&
        d.graph_optimization != "disabled")
      problem(path + "/graph_optimization",
              "must be all, extended, basic or disabled, not '" + d.graph_optimization + "'");
    d.max_size = text(j, path, "max_size", false);
    if (!d.max_size.empty() && !std::regex_match(d.max_size, size))
      problem(path + "/max_size", "must read INPUT=HEIGHTxWIDTH, e.g. x=320x320");
    d.provider_options = strings(j, path, "provider_options");
    d.session_options = strings(j, path, "session_options");
    if (j.contains("evidence")) d.evidence = evidence(j["evidence"], path + "/evidence");
    return d;
  }

  Manifest manifest(const json& j) {
    Manifest m;
    unknown_keys(j, "", {"schema", "model", "parity_version", "created", "backends"});
    if (text(j, "", "schema", true) != kSchema && j.contains("schema"))
      problem("/schema", std::string("must be \"") + kSchema + "\" (this Parity reads version 1)");
    m.model = text(j, "", "model", true);
    m.parity_version = text(j, "", "parity_version", false);
    m.created = text(j, "", "created", false);
    if (!j.contains("backends") || !j["backends"].is_object() || j["backends"].empty()) {
      problem("/backends", "must be a table with one table per backend");
      return m;
    }
    for (const auto& [label, d] : j["backends"].items())
      m.backends.push_back(declaration(label, d, "/backends/" + label));
    return m;
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
  return {{"schema", kSchema},
          {"model", m.model},
          {"parity_version", m.parity_version},
          {"created", m.created},
          {"backends", backends}};
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

}  // namespace parity::manifest
