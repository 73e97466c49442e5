// tests/support/fixtures.h: what every data-driven CLI fixture runner shares: listing the cases of
// one fixtures folder, the {placeholder} expansion, and running one case's `args`/`env`.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_parity.h"

namespace parity::testing {

// Stems of tests/fixtures/<folder>/*.json, sorted (the test names).
std::vector<std::string> fixture_names(const std::string& folder);

// Parses tests/fixtures/<folder>/<name>.json; a discarded json when it is not valid JSON.
nlohmann::json load_fixture(const std::string& folder, const std::string& name);

// Replaces every placeholder key of `vars` in `s`.
std::string expand(std::string s, const std::map<std::string, std::string>& vars);

// The placeholders of every runner: {models} generated test models, {third_party} bootstrap
// folder, {source} repository root, {tmp} `tmp_dir`, {mock_icd} a Vulkan ICD manifest for
// Chromium's mock driver (no usable adapter).
std::map<std::string, std::string> fixture_vars(const std::string& tmp_dir);

// Keys of `object` not in `known`, each prefixed with `where` ("expect.", "expect.backends.cpu."):
// a runner fails on them, so a misspelt key cannot silently check nothing.
std::vector<std::string> unknown_keys(const nlohmann::json& object, const std::vector<std::string>& known,
                                      const std::string& where);

// Runs `verb` with the fixture's "args" (expanded) plus `extra_args`, under its "env".
CommandResult run_fixture(const std::string& verb, const nlohmann::json& fx,
                          const std::map<std::string, std::string>& vars,
                          const std::vector<std::string>& extra_args = {});

}  // namespace parity::testing
