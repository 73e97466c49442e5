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
  if (!out.ok()) return report_failure(verb, out.error());
  std::FILE* stream = json_path == "-" ? stderr : stdout;
  std::fputs(colour_wanted(stream) ? colour_verdicts(out->text).c_str() : out->text.c_str(), stream);
  if (!out->json.is_null())
    if (int rc = emit_json(verb, json_path, out->json, out->json_indent); rc != kExitOk) return rc;
  for (const auto& [path, contents] : out->documents)
    if (auto st = write_text_file(path, contents); !st.ok()) return report_failure(verb, st.error());
  return out->exit_code;
}

int emit_json(std::string_view verb, const std::string& path, const nlohmann::json& j, int indent) {
  if (path.empty()) return kExitOk;
  if (path == "-") {
    std::cout << j.dump(indent) << std::endl;
    return kExitOk;
  }
  if (auto st = write_text_file(path, j.dump(indent) + "\n"); !st.ok())
    return report_failure(verb, st.error());
  return kExitOk;
}

}  // namespace parity::cli
