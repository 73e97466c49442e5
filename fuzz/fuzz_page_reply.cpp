// libFuzzer target: every page-reply decoder on arbitrary JSON (inputs that do not parse are
// skipped) must decode or return an internal error naming the field, never throw.
#include <cstdio>
#include <cstdlib>

#include "page_reply_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto reply = nlohmann::json::parse(data, data + size, nullptr, false);
  if (reply.is_discarded()) return 0;
  const std::string problem = parity::fuzz::check_page_reply(reply);
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_page_reply: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
