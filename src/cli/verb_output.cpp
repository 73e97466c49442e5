#include <cstdio>
#include <iostream>
#include <string>

#include "cli/verb.h"
#include "core/file_io.h"
#include "core/terminal_colour.h"

namespace parity::cli {

int exit_code_for(const Error& e) {
  return e.kind == ErrorKind::bad_input || e.kind == ErrorKind::io ? kExitUsage : kExitCannotRun;
}

int report_failure(std::string_view verb, const Error& e) {
  std::fprintf(stderr, "parity %.*s: %s\n", static_cast<int>(verb.size()), verb.data(), e.message.c_str());
  if (!e.hint.empty()) std::fprintf(stderr, "  hint: %s\n", e.hint.c_str());
  return exit_code_for(e);
}

Error usage_error(std::string message, std::string hint) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

int emit(std::string_view verb, const std::string& json_path, const Result<VerbOutput>& out) {
  if (!out.ok()) return report_failure(verb, out.error());
  std::FILE* stream = names_stdout(json_path) ? stderr : stdout;
  std::fputs(colour_wanted(stream) ? colour_verdicts(out->text).c_str() : out->text.c_str(), stream);
  std::fflush(stream);
  // Every destination is tried whatever became of the others; the first failure sets the status.
  int failed = kExitOk;
  const auto note = [&](int rc) {
    if (failed == kExitOk) failed = rc;
  };
  if (!out->json.is_null()) note(emit_json(verb, json_path, out->json, out->json_indent));
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
