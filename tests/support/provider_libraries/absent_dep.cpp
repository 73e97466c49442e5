// The dependency of the provider-library fixture that the test keeps off the loader's path.
extern "C" __attribute__((visibility("default"))) int parity_test_absent_dep_value() { return 1; }
