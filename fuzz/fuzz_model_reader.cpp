// libFuzzer target: inspect_model_bytes on arbitrary bytes must return a value, never crash.
#include <cstdio>
#include <cstdlib>

#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = parity::fuzz::check_model_reader({reinterpret_cast<const char*>(data), size});
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_model_reader: %s\n", problem.c_str());
    std::abort();  // libFuzzer records the input as a crash
  }
  return 0;
}
