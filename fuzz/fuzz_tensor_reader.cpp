// libFuzzer target: parse_tensor_proto on arbitrary bytes (first byte: declared type) must return
// a value, never crash, and accepted tensors must round-trip.
#include <cstdio>
#include <cstdlib>

#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = parity::fuzz::check_tensor_reader({reinterpret_cast<const char*>(data), size});
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_tensor_reader: %s\n", problem.c_str());
    std::abort();  // libFuzzer records the input as a crash
  }
  return 0;
}
