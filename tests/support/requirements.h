// tests/support/requirements.h: the one place that decides what a test needs from the machine
// (Chromium, a WebGPU adapter, the ONNX test data, ...) and what happens when it is missing.
//
// On a developer's machine a missing tool skips the test with the reason. In CI (PARITY_CI=1,
// set by .ci/run) the bootstrap installs every tool, so a missing one is a broken setup and
// fails the test: CI never passes by skipping what it was meant to check.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace parity::testing {

// Empty when `requirement` is met here, else why not (with how to get it). Known names:
//   chromium        Debian's chromium at /usr/lib/chromium/chromium (browser backends)
//   webgpu-adapter  a Vulkan driver Dawn can use: SwiftShader (chromium) or a GPU's ICD
//   mock-icd        Chromium's mock Vulkan ICD (a driver with no usable adapter)
//   vulkan-loader   libvulkan.so.1
//   onnx-testdata   Debian's libonnx-testdata (the ONNX backend test suite)
//   numpy           /usr/bin/python3 with numpy
//   ocr-models      the PP-OCRv4 det/rec and PP-OCR cls models in third_party/models (npm corpus)
//   vad-model       Silero VAD v5 (vad-web's export) in third_party/models
//   corpus-models   the npm corpus in third_party/models/corpus (openWakeWord, Silero v4, livekit's v5)
//   slow            not skipped by PARITY_SKIP_SLOW=1 (a quick local loop)
// An unknown name is reported as unmet, so a misspelt requirement cannot pass silently.
std::string unmet_requirement(std::string_view requirement);

bool in_ci();  // PARITY_CI=1

}  // namespace parity::testing

// Skips the current test (fails it under PARITY_CI=1) when `requirement` is unmet.
#define PARITY_REQUIRE(requirement)                                                            \
  do {                                                                                         \
    if (const std::string parity_unmet = ::parity::testing::unmet_requirement(requirement);    \
        !parity_unmet.empty()) {                                                               \
      if (::parity::testing::in_ci() && std::string_view(requirement) != "slow")               \
        FAIL() << "PARITY_CI=1 and this test needs " << (requirement) << ": " << parity_unmet; \
      GTEST_SKIP() << parity_unmet;                                                            \
    }                                                                                          \
  } while (false)
