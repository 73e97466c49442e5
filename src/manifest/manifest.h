// manifest/manifest.h: the capability manifest, what an application loads at run time to pick, per
// backend, the model file, optimization level and size budget that a sweep proved correct, with
// the evidence behind each choice. Written as TOML (people edit it) or JSON (web apps load it),
// one schema, versioned: "parity.manifest/1" (docs/manifest.md).
//
// This module depends on core only, so the guard runtime can read manifests without the rest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "parity/result.h"

namespace parity::manifest {

inline constexpr const char* kSchema = "parity.manifest/1";

// Where a declaration came from: the sweep cell that proved it.
struct Evidence {
  std::size_t cell = 0;
  std::string status;  // "ok" for an enabled backend
  std::optional<double> max_abs, cosine;
  std::string ort_version, adapter;
  std::string date;  // YYYY-MM-DD the sweep ran
};

// What one backend may run. `enabled = false` carries the reason instead of a choice.
struct Declaration {
  std::string backend;  // the label, the key of the table
  std::string ep;       // "cpu", "webgpu", "web-wasm", ...
  bool enabled = false;
  std::string reason;  // why not, when !enabled
  std::string variant, file, sha256, precision;
  std::string graph_optimization;  // all | extended | basic | disabled
  std::string max_size;            // "x=160x160": the largest size proven; empty = not swept
  std::map<std::string, std::string> provider_options, session_options;
  std::optional<Evidence> evidence;
};

struct Manifest {
  std::string model;  // the fp32 reference model the sweep judged against
  std::string parity_version;
  std::string created;  // YYYY-MM-DD
  std::vector<Declaration> backends;
};

std::string to_toml(const Manifest& m);
nlohmann::json to_json(const Manifest& m);

// A problem in a manifest file, with the line it is on (0 when the format has no lines: JSON).
struct Problem {
  int line = 0;
  std::string message;
};

// Reads FILE (.toml or .json) and checks every key and value: unknown keys, wrong types, missing
// required fields, bad enum values. All problems are listed; the manifest is usable only when
// there are none. An unreadable or unparsable file is an Error.
struct Checked {
  Manifest manifest;
  std::vector<Problem> problems;
};
Result<Checked> read_manifest(const std::filesystem::path& path);

// Writes TOML, or JSON when the name ends in .json (checked write).
Status write_manifest(const Manifest& m, const std::filesystem::path& path);

}  // namespace parity::manifest
