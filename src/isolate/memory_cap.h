// isolate/memory_cap.h: naming a worker's memory deaths by what really happened.
//
// A worker under --max-memory runs with RLIMIT_DATA at the cap. Native code that does not check an
// allocation (Dawn, SwiftShader) then dies of SIGSEGV/SIGBUS/SIGABRT instead of reporting out of
// memory; the worker leaves a marker line on its log when it dies so at its cap, and the parent
// names that "oom (capped)". A SIGKILL the parent did not send is the kernel's OOM killer only if
// the kernel's oom_kill count rose meanwhile; otherwise someone else killed the worker.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace parity::isolate {

// The line a worker writes to its log when it dies of a signal at its memory cap.
inline constexpr std::string_view kCapCrashMarker = "parity-worker: died at its memory cap";

// Worker side: when RLIMIT_DATA is finite, notes failed allocations (operator new) and installs
// SIGSEGV/SIGBUS/SIGABRT handlers that write kCapCrashMarker when an allocation had failed or the
// data size was within 10% of the cap, then die of the signal as before. No-op without a cap.
void note_crashes_at_memory_cap();

// The kernel's count of OOM kills since boot (/proc/vmstat oom_kill); nullopt when unreadable.
std::optional<uint64_t> kernel_oom_kills();

}  // namespace parity::isolate
