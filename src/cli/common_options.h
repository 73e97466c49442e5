// cli/common_options.h: options every model-running verb shares (backend defaults, isolation
// limits, output files), declared once so their names, help and env fallbacks never drift.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "isolate/isolated_runner.h"
#include "parity/metrics.h"
#include "parity/result.h"

namespace parity::cli {

struct CommonOptions {
  std::string ort_lib;  // --ort-lib (env PARITY_ORT_LIB)
  std::string opt_level = "all";
  bool allow_fallback = true;  // --fallback / --no-fallback
  std::string webgpu_adapter = "auto";
  bool count_nodes = true;
  double timeout_s = 600;
  std::string max_memory;                   // "4G", "512M"; plain number = MiB
  std::string ort_web_version;              // --ort-web-version (env PARITY_ORT_WEB_VERSION)
  std::string ort_web_dir;                  // --ort-web-dir (env PARITY_ORT_WEB_DIR)
  std::string chromium;                     // --chromium (env PARITY_CHROMIUM)
  std::vector<std::string> chromium_flags;  // --chromium-flag (repeatable)
  std::string json_path;                    // --json FILE ("-" = stdout)
  bool quiet = false;

  backend::BackendSpec defaults() const;  // the run-wide defaults for backend specs
  // These options as command-line words, only those that differ from their defaults (--json and
  // --quiet left out): what a repro command needs to set the same backends up again.
  std::vector<std::string> as_flags() const;
  Result<isolate::IsolationLimits> limits() const;
};

void add_common_options(CLI::App& cmd, CommonOptions& o);

// CLI11 validators over core/number_text.h, so an option's value is read by the one checked parser
// before CLI11 converts it (CLI11 2.1 wraps "-1" into an unsigned, reads "010" as octal and takes
// "nan"): a bad value is a usage error (exit 2) naming the option. check_option_values() puts them on
// every verb's options by name.
CLI::Validator finite_number();                          // a finite real: --atol, --rtol, --timeout
CLI::Validator whole_number(uint64_t max = 0x7fffffff);  // 0 .. max: --cell, --cases, --jobs
CLI::Validator seed_number();                            // 0 .. 2^64-1, no sign: --seed
CLI::Validator file_path();                              // not empty: --json '' names no file

// Adds the validator each numeric or path option needs, by its name, to `cmd` and its subcommands.
void check_option_values(CLI::App& cmd);

// --NAME / --no-NAME setting `value`; the help states the default (value's current state).
void add_switch(CLI::App& cmd, const std::string& name, bool& value, const std::string& help);

// Progress lines ("parity: webgpu: 4 samples on one session ...") on stderr, none with --quiet.
std::function<void(const std::string&)> progress_for(const CommonOptions& o);
// One progress line, "parity: LINE", on stderr; names from models and records in it are escaped
// (core/terminal_text.h).
void print_progress(const std::string& line);

// --reference SPEC, the backend whose values count as right (default cpu).
void add_reference_option(CLI::App& cmd, std::string& reference);

// --atol/--rtol: one fixed rule for every tensor a verb judges, replacing the default by dtype.
struct ToleranceArgs {
  std::optional<double> atol, rtol;
  // The fixed numpy rule asked for; the unset half is 0. Absent when neither flag was given.
  std::optional<Tolerance> fixed() const;
};
// `what` completes the help text: "every output", "every tensor".
void add_tolerance_options(CLI::App& cmd, ToleranceArgs& t, const std::string& what);

// --tol PATTERN=ATOL,RTOL values parsed into (pattern, fixed rule) pairs; errors name `flag_help`
// ("NAME=ATOL,RTOL") and the bad value.
Result<std::vector<std::pair<std::string, Tolerance>>> parse_tolerance_list(
    const std::vector<std::string>& tols, const std::string& flag_help);

// "4G" -> bytes; plain numbers are MiB. Errors name the flag.
Result<uint64_t> parse_size(const std::string& text, const std::string& flag);

}  // namespace parity::cli
