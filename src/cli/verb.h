// cli/verb.h: one entry of the verb table. Every verb (probe, bisect, sweep, ...) defines its
// options on its own CLI11 subcommand and returns the function that runs it, so all verbs share
// one parser, one help format and one set of exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parity/error.h"
#include "parity/result.h"

namespace parity::cli {

// Exit codes shared by all verbs: the one table (docs/architecture.md, "Exit codes"; each verb's
// --help footer; tests/cli/exit_code_test.cpp runs every verb against it).
inline constexpr int kExitOk = 0;       // everything agreed / nothing found
inline constexpr int kExitFinding = 1;  // a mismatch, an inconclusive row or a failed backend
// Bad invocation; a missing, empty or invalid model or input file (not ONNX, not a manifest, not a
// repro folder); unwritable output.
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCannotRun =
    3;  // the verb could not do its work at all (no backend here, a lock held)
// Nothing to do: the invocation selects no work (a filter that matches nothing, a backend the verb
// does not apply to).
inline constexpr int kExitNothing = 4;
// Stopped by SIGINT/SIGHUP/SIGTERM: 128 + the signal (130 for Ctrl-C, 143 for SIGTERM, 129 for
// SIGHUP), as shells report it. The JSON then says "interrupted": true and the text what finished;
// nothing unfinished is a verdict. main() returns it after the verb's output is written.
inline constexpr int kExitInterruptedBase = 128;

// The table's line every verb's --help ends with.
inline constexpr const char* kExitTable =
    "Exit codes (every verb): 0 ok, 1 finding, 2 bad invocation or invalid input (missing, empty or "
    "not-ONNX model, unreadable file), 3 cannot run, 4 nothing to do, 128+N stopped by signal N "
    "(130 Ctrl-C, 143 SIGTERM).";

// The one mapping from an Error that stops a verb to its exit code: bad_input and io are the
// user's to fix (kExitUsage); anything else means the work could not be done (kExitCannotRun).
int exit_code_for(const Error& e);

// Prints "parity VERB: message" and the hint to stderr; returns exit_code_for(e).
int report_failure(std::string_view verb, const Error& e);

// Writes a verb's JSON report: nothing for an empty path, else through write_text_file (stdout for
// "-" or /dev/stdout; a device, FIFO or link in place; a file through a temporary and a rename).
// Returns kExitOk or report_failure's code.
int emit_json(std::string_view verb, const std::string& path, const nlohmann::json& j, int indent = 2);

// A mistake in the invocation (bad_input at parse_args, exit 2): the one constructor all verbs use.
Error usage_error(std::string message, std::string hint = {});

// What a verb produced, for emit().
struct VerbOutput {
  std::string text;         // the human-readable result: stdout (stderr when the JSON goes to stdout)
  nlohmann::json json;      // the --json document; null = the verb writes none
  int json_indent = 2;      // conformance writes compact rows (1)
  int exit_code = kExitOk;  // once text and JSON are written
  // Other documents the verb was asked for (--html FILE): path and contents, written after the JSON.
  std::vector<std::pair<std::string, std::string>> documents = {};
  // Destinations the verb itself could not write while it ran (a repro folder, --save-io): said
  // after every other destination is written, and the exit status is then theirs.
  std::vector<Error> failed_outputs = {};
};

// A verb whose invocation selects no work: "nothing to do: <why>" and kExitNothing, so a CI job
// whose filter drifted from the suite does not pass by running nothing.
VerbOutput nothing_to_do(std::string_view verb, const std::string& why);

// The one ending of every verb: a failed verb (the error) is printed with its hint and mapped by
// exit_code_for; otherwise the text is printed, the JSON written to `json_path` (if any) and the
// documents to theirs, each regardless of the others (a full disk loses only what it cannot hold),
// and out.exit_code returned, unless a write failed or out.failed_outputs holds one (then every
// failure is said, and the first one's code returned).
// Once a stop was requested (core/interrupt.h), the JSON object gets "interrupted": true unless the
// verb set it, and the text a closing "interrupted" line; a verb stopped before it had anything to
// report (an interrupted Error) still writes {"interrupted": true, "error": ...} to its --json.
int emit(std::string_view verb, const std::string& json_path, const Result<VerbOutput>& out);

using VerbRunner = std::function<int()>;

struct Verb {
  std::string_view name;
  std::string_view summary;
  bool hidden = false;  // internal verbs (worker) stay out of --help
  // Declares the verb's options on `cmd`; the returned runner executes it after parsing.
  std::function<VerbRunner(CLI::App& cmd)> define;
};

// The --json path a verb's arguments name: the shared option group's, the verb's own, or none.
template <class Args>
const std::string& json_path_of(const Args& a) {
  static const std::string none;
  if constexpr (requires { a.common.json_path; })
    return a.common.json_path;
  else if constexpr (requires { a.json_path; })
    return a.json_path;
  else
    return none;
}

// The last border: an exception escaping a verb's engine (a bug; modules return Errors) becomes an
// internal Error with exit 3 instead of std::terminate's abort.
Result<VerbOutput> verb_exception(std::string_view verb, const std::exception* e);
template <class Args>
Result<VerbOutput> run_guarded(std::string_view verb, Result<VerbOutput> (*run)(const Args&),
                               const Args& args) {
  try {
    return run(args);
  } catch (const std::exception& e) {
    return verb_exception(verb, &e);
  } catch (...) {
    return verb_exception(verb, nullptr);
  }
}

// The frame every verb shares, so a verb file holds only what is particular to it: its Args
// struct, `declare` (its options and help on `cmd`) and `run` (the work, as a VerbOutput). The
// arguments live as long as the runner; emit() prints the result and writes the --json.
template <class Args>
Verb make_verb(std::string_view name, std::string_view summary, void (*declare)(CLI::App& cmd, Args& args),
               Result<VerbOutput> (*run)(const Args& args)) {
  return {name, summary, false, [name, declare, run](CLI::App& cmd) -> VerbRunner {
            auto args = std::make_shared<Args>();
            declare(cmd, *args);
            return
                [name, args, run] { return emit(name, json_path_of(*args), run_guarded(name, run, *args)); };
          }};
}

Verb inspect_verb();
Verb probe_verb();
Verb bisect_verb();
Verb verify_verb();
Verb sweep_verb();
Verb manifest_verb();
Verb lint_verb();
Verb accept_verb();
Verb findings_verb();
Verb worker_verb();
Verb backends_verb();
Verb conformance_verb();
Verb hunt_verb();
Verb chaos_verb();  // src/chaos/verb_chaos.cpp (needs the CLI's shared options)

}  // namespace parity::cli
