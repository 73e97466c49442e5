// tests/backend/backend_test_util.h: shared helpers of the backend tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "parity/tensor.h"
#include "support/temp_dir.h"

namespace parity::backend::testing {

inline std::string model_path(const std::string& name) {
  return std::string(PARITY_TEST_MODELS) + "/" + name;
}
inline std::string ort_129_lib() {
  return std::string(PARITY_THIRD_PARTY) + "/ort-1.29.0/lib/libonnxruntime.so.1";
}

inline BackendSpec spec_for(const std::string& ep) {
  BackendSpec spec;
  spec.label = ep;
  spec.ep = ep;
  return spec;
}

// Deterministic inputs: values in [-1, 1) from a small LCG, so tests need no <random> seeding.
inline std::vector<float> test_values(std::size_t n, uint32_t seed = 7) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
  }
  return v;
}

// Sets (or unsets, with nullopt) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value)
      setenv(name_.c_str(), value->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A fresh folder under the temp dir, removed at scope end.
using ScopedTempDir = parity::testing::TempDir;

}  // namespace parity::backend::testing
