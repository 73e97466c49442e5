// An EP provider library, named libonnxruntime_providers_cuda.so in a provider-library test,
// whose dependency (parity_test_absent_dep, built but not on the loader's path) cannot be found:
// what the CUDA EP's library is to the loader on a machine without CUDA's libraries.
extern "C" int parity_test_absent_dep_value();
extern "C" __attribute__((visibility("default"))) int parity_test_provider_value() {
  return parity_test_absent_dep_value();
}
