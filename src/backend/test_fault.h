// backend/test_fault.h: PARITY_TEST_FAULT=<stage>:<action>, a test-only hook that makes a worker
// fail at a chosen stage, so tests (and users checking their own integration) can prove that
// every failure becomes a typed error and never takes the parent down.
//
// Actions: segv (SIGSEGV), abort (SIGABRT), hang (sleep forever), stall (the same, natively), null (the
// guarded creation at that stage receives a null object / failed status), oom (allocate until allocation
// fails, then the guarded creation at that stage fails as out of memory), oom-crash (allocate until
// allocation fails, then die of SIGSEGV still holding it, as native code that uses a failed allocation
// does). The oom actions allocate up to the worker's memory cap (--max-memory); a worker with none caps
// itself 256 MiB above what it holds, so the fault never eats the host's memory.
//
// Browser backends (web-*) perform them in the real page instead: segv crashes the renderer (CDP
// Page.crash), hang spins the page's main thread (busy, no heartbeat), stall awaits a promise that
// never settles (idle, heartbeat on), abort throws a bare number (as an aborting wasm
// build does), null drops the outputs (read-output only), device-lost destroys the WebGPU device
// before the run (run only). oom is refused there: a real >4 GiB model exercises the wasm limit.
//
// Stage names are the kebab-case ones of parity/error.h; snake_case is accepted too. A trailing
// ":first" limits the fault to first attempts (see TestFault::first_only).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "parity/error.h"
#include "parity/result.h"

namespace parity::backend {

enum class FaultAction { segv, abort, hang, null_result, oom, device_lost, stall, oom_crash };  // append-only

struct TestFault {
  Stage stage = Stage::none;
  FaultAction action = FaultAction::segv;
  // "<stage>:<action>:first": only a first attempt fails, not a re-check of the same cell
  // (RunRequest::fresh), so tests can produce a real flaky verdict.
  bool first_only = false;
};

// Parses "create-session:segv". Bad specs are a bad_input Error (never silently ignored).
Result<TestFault> parse_test_fault(std::string_view spec);
// Reads PARITY_TEST_FAULT; nullopt when unset or empty.
Result<std::optional<TestFault>> test_fault_from_env();

// Performs segv/abort/hang/oom when `fault` targets `stage`; returns normally otherwise
// (and for null_result and after oom's allocation failed: the guarded creation point then
// fails on purpose, see wants_null()).
void trigger_test_fault(const std::optional<TestFault>& fault, Stage stage);
bool wants_null(const std::optional<TestFault>& fault, Stage stage);

}  // namespace parity::backend
