#include "cli/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/common_options.h"
#include "cli/verb.h"
#include "core/interrupt.h"
#include "parity/version.h"

namespace parity::cli {
namespace {

// The verb table: one line per verb, in the order --help lists them.
std::vector<Verb> verb_table() {
  std::vector<Verb> verbs;
  verbs.push_back(inspect_verb());
  verbs.push_back(probe_verb());
  verbs.push_back(bisect_verb());
  verbs.push_back(verify_verb());
  verbs.push_back(sweep_verb());
  verbs.push_back(manifest_verb());
  verbs.push_back(accept_verb());
  verbs.push_back(lint_verb());
  verbs.push_back(findings_verb());
  verbs.push_back(conformance_verb());
  verbs.push_back(chaos_verb());
  verbs.push_back(hunt_verb());
  verbs.push_back(backends_verb());
  verbs.push_back(worker_verb());
  return verbs;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"parity: run ONNX models across execution backends and prove the outputs are right", "parity"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(kParityVersion));
  app.footer("Run 'parity VERB --help' for a verb's options. Docs: docs/<verb>.md");
  std::vector<Verb> verbs = verb_table();
  std::vector<std::pair<CLI::App*, VerbRunner>> runners;
  for (auto& v : verbs) {
    CLI::App* cmd = app.add_subcommand(std::string(v.name), std::string(v.summary));
    if (v.hidden) cmd->group("");
    runners.emplace_back(cmd, v.define(*cmd));
    check_option_values(*cmd);
    // One exit-code table for every verb, under the verb's own words about its codes.
    cmd->footer(cmd->get_footer() + (cmd->get_footer().empty() ? "" : "\n") + kExitTable);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help or the error; never exits the process
    return e.get_exit_code() == 0 ? kExitOk : (code == 0 ? kExitOk : kExitUsage);
  }
  // Ctrl-C/SIGTERM unwind through the RAII owners of workers, browsers and temp folders.
  install_interrupt_handlers();
  for (auto& [cmd, runner] : runners) {
    if (!cmd->parsed()) continue;
    const int code = runner();
    if (interrupted()) {
      std::fprintf(stderr, "parity: interrupted; workers and browsers were shut down\n");
      return kExitInterruptedBase + interrupt_signal();
    }
    // The result on stdout is the product: a write that failed (a full disk, /dev/full) must not
    // pass for one that was made.
    errno = 0;
    std::cout.flush();  // synced with stdio: this flushes stdout, so errno may say why already
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
      std::fprintf(stderr, "parity %s: cannot write to standard output%s\n", cmd->get_name().c_str(),
                   errno ? (std::string(": ") + std::strerror(errno)).c_str() : "");
      return code == kExitCannotRun ? code : kExitUsage;
    }
    return code;
  }
  return kExitUsage;
}

}  // namespace parity::cli
