// manifest/manifest.h: reading, checking and writing capability manifests (the types are public:
// parity/manifest.h).
//
// This module depends on core only, so the guard runtime can read manifests without the rest.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "parity/manifest.h"
#include "parity/result.h"

namespace parity::manifest {

// Where a path the manifest records (a declaration's file, the model, a sweep input) is: relative
// ones beside the manifest (in `manifest_dir`), else from the current folder (the sweep ran here);
// absolute ones as written; and a file that is in neither place but whose name is beside the
// manifest is that one (the manifest travelled with its files). Else the first candidate, for the
// reader to report missing.
std::filesystem::path resolve_recorded(const std::string& written, const std::filesystem::path& manifest_dir);

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
