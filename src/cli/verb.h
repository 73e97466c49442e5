// cli/verb.h: one entry of the verb table. Every verb (probe, bisect, sweep, ...) defines its
// options on its own CLI11 subcommand and returns the function that runs it, so all verbs share
// one parser, one help format and one set of exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string_view>

namespace parity::cli {

// Exit codes shared by all verbs.
inline constexpr int kExitOk = 0;         // everything agreed / nothing found
inline constexpr int kExitFinding = 1;    // a mismatch or a failed backend
inline constexpr int kExitUsage = 2;      // bad invocation or unreadable model
inline constexpr int kExitCannotRun = 3;  // the target could not be run at all

using VerbRunner = std::function<int()>;

struct Verb {
  std::string_view name;
  std::string_view summary;
  bool hidden = false;  // internal verbs (worker) stay out of --help
  // Declares the verb's options on `cmd`; the returned runner executes it after parsing.
  std::function<VerbRunner(CLI::App& cmd)> define;
};

Verb probe_verb();
Verb bisect_verb();
Verb verify_verb();
Verb worker_verb();
Verb backends_verb();
Verb conformance_verb();
Verb chaos_verb();  // src/chaos/verb_chaos.cpp (needs the CLI's shared options)

}  // namespace parity::cli
