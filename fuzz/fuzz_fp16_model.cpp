// libFuzzer target: the fp16 converter's model path on arbitrary bytes must return a
// typed value, never crash Parity. Seed it with tests/models' crafted_*.onnx and a few clean models.
#include <cstdio>
#include <cstdlib>

#include "model_path_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = parity::fuzz::check_fp16({reinterpret_cast<const char*>(data), size});
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_fp16_model: %s\n", problem.c_str());
    std::abort();  // libFuzzer records the input as a crash
  }
  return 0;
}
