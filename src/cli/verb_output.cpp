#include <cstdio>
#include <iostream>
#include <string>

#include "cli/verb.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/json_io.h"
#include "core/terminal_colour.h"
#include "core/terminal_text.h"

namespace parity::cli {

int exit_code_for(const Error& e) {
  return e.kind == ErrorKind::bad_input || e.kind == ErrorKind::io ? kExitUsage : kExitCannotRun;
}

int report_failure(std::string_view verb, const Error& e) {
  // Messages quote names from models and records: escaped like every other line (terminal_text.h).
  std::fprintf(stderr, "parity %.*s: %s\n", static_cast<int>(verb.size()), verb.data(),
               terminal_safe(e.message).c_str());
  if (!e.hint.empty()) std::fprintf(stderr, "  hint: %s\n", terminal_safe(e.hint).c_str());
  return exit_code_for(e);
}

Result<VerbOutput> verb_exception(std::string_view verb, const std::exception* e) {
  return make_error(ErrorKind::internal, Stage::none,
                    "parity " + std::string(verb) +
                        " stopped on an unexpected exception: " + (e ? e->what() : "(not a std::exception)"),
                    "this is a bug in Parity: please report it with the command and the model");
}

VerbOutput nothing_to_do(std::string_view verb, const std::string& why) {
  VerbOutput out;
  out.text = "parity " + std::string(verb) + ": nothing to do: " + why + "\n";
  out.exit_code = kExitNothing;
  return out;
}

Error usage_error(std::string message, std::string hint) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

int emit(std::string_view verb, const std::string& json_path, const Result<VerbOutput>& out) {
  const bool stopped = interrupted();
  if (!out.ok()) {
    // Stopped before there was anything to report: the --json still says so, never a stale file.
    if (stopped || out.error().kind == ErrorKind::interrupted)
      (void)emit_json(verb, json_path,
                      {{"verb", std::string(verb)},
                       {"interrupted", true},
                       {"finished", "nothing"},
                       {"error", error_to_json(out.error())}});
    return report_failure(verb, out.error());
  }
  std::FILE* stream = names_stdout(json_path) ? stderr : stdout;
  nlohmann::json json = out->json;
  // Control characters a model or record put in the text are escaped before Parity's own colour
  // is added, so only Parity's escapes reach the terminal.
  std::string text = terminal_safe(out->text);
  // A verb that knows what finished says so itself (its JSON has "interrupted"); for the others
  // this field and line make sure no interrupted output reads as whole.
  if (stopped && !(json.is_object() && json.contains("interrupted"))) {
    text += "interrupted: the run was stopped; only what is listed above finished\n";
    if (json.is_object()) json["interrupted"] = true;
  }
  std::fputs(colour_wanted(stream) ? colour_verdicts(text).c_str() : text.c_str(), stream);
  std::fflush(stream);
  // Every destination is tried whatever became of the others; the first failure sets the status.
  int failed = kExitOk;
  const auto note = [&](int rc) {
    if (failed == kExitOk) failed = rc;
  };
  if (!json.is_null()) note(emit_json(verb, json_path, json, out->json_indent));
  for (const auto& [path, contents] : out->documents)
    if (auto st = write_text_file(path, contents); !st.ok()) note(report_failure(verb, st.error()));
  for (const auto& e : out->failed_outputs) note(report_failure(verb, e));
  return failed != kExitOk ? failed : out->exit_code;
}

int emit_json(std::string_view verb, const std::string& path, const nlohmann::json& j, int indent) {
  if (path.empty()) return kExitOk;
  std::cout.flush();  // the JSON may go to descriptor 1 directly, after what stdio holds
  std::fflush(stdout);
  if (auto st = write_text_file(path, j.dump(indent) + "\n"); !st.ok())
    return report_failure(verb, st.error());
  return kExitOk;
}

}  // namespace parity::cli
