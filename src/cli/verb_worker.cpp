// `parity worker`: the isolated worker process; started by parity itself, never by hand.
#include "cli/verb.h"
#include "isolate/worker.h"

namespace parity::cli {

Verb worker_verb() {
  return {"worker", "internal: serve one backend request on fds 3/4", true, [](CLI::App& cmd) -> VerbRunner {
            cmd.footer("Internal. Reads one request on fd 3 and writes the reply on fd 4.");
            return [] { return isolate::worker_main(3, 4); };
          }};
}

}  // namespace parity::cli
