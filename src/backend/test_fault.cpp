#include "backend/test_fault.h"

#include <sys/resource.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace parity::backend {
namespace {

constexpr std::string_view kEnvVar = "PARITY_TEST_FAULT";

std::optional<FaultAction> action_from_name(std::string_view name) {
  if (name == "segv") return FaultAction::segv;
  if (name == "abort") return FaultAction::abort;
  if (name == "hang") return FaultAction::hang;
  if (name == "null") return FaultAction::null_result;
  if (name == "oom") return FaultAction::oom;
  if (name == "device-lost") return FaultAction::device_lost;
  if (name == "stall") return FaultAction::stall;
  if (name == "oom-crash") return FaultAction::oom_crash;
  return std::nullopt;
}

Error bad_spec(std::string_view spec, std::string why) {
  return make_error(ErrorKind::bad_input, Stage::parse_args,
                    std::string(kEnvVar) + "='" + std::string(spec) + "': " + std::move(why),
                    "use <stage>:<action>[:first], e.g. create-session:segv; actions: segv, abort, hang, "
                    "stall, null, oom, oom-crash, device-lost");
}

// The worker's data size now (VmData), 0 when unknown.
uint64_t data_bytes_now() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmData:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 10) * 1024;
  return 0;
}

// Allocates until allocation fails and returns what it holds. `touch`: write every page, so a limit
// on resident memory (a cgroup) trips too, not just overcommit; without it only the mappings count,
// as for a driver whose large mapping fails at the cap. The limit is the worker's RLIMIT_DATA
// (--max-memory); with none, the worker caps itself 256 MiB above its data size first: a test
// fault must not eat the host's memory.
std::vector<std::unique_ptr<char[]>> allocate_until_failure(bool touch) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_DATA, &lim) == 0 && lim.rlim_cur == RLIM_INFINITY) {
    lim.rlim_cur = data_bytes_now() + (rlim_t{256} << 20);
    ::setrlimit(RLIMIT_DATA, &lim);
  }
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  std::vector<std::unique_ptr<char[]>> held;
  held.reserve(4096);  // no reallocation of the list itself near the limit
  for (std::size_t i = 0; i < held.capacity(); ++i) {
    std::unique_ptr<char[]> chunk(new (std::nothrow) char[kChunk]);
    if (!chunk) break;
    if (touch) std::memset(chunk.get(), 0x5a, kChunk);
    held.push_back(std::move(chunk));
  }
  return held;
}

}  // namespace

Result<TestFault> parse_test_fault(std::string_view spec) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) return bad_spec(spec, "missing ':'");
  // Accept snake_case stage names too, since that is how they appear in C++ and JSON keys.
  std::string stage_name(spec.substr(0, colon));
  for (char& c : stage_name)
    if (c == '_') c = '-';
  const auto stage = stage_from_string(stage_name);
  if (!stage || *stage == Stage::none) return bad_spec(spec, "unknown stage '" + stage_name + "'");
  std::string_view action_name = spec.substr(colon + 1);
  constexpr std::string_view kFirst = ":first";
  const bool first_only = action_name.ends_with(kFirst);
  if (first_only) action_name.remove_suffix(kFirst.size());
  const auto action = action_from_name(action_name);
  if (!action) return bad_spec(spec, "unknown action '" + std::string(action_name) + "'");
  return TestFault{*stage, *action, first_only};
}

Result<std::optional<TestFault>> test_fault_from_env() {
  const char* value = std::getenv(kEnvVar.data());
  if (value == nullptr || *value == '\0') return std::optional<TestFault>{};
  PARITY_ASSIGN_OR_RETURN(fault, parse_test_fault(value));
  return std::optional<TestFault>{fault};
}

void trigger_test_fault(const std::optional<TestFault>& fault, Stage stage) {
  if (!fault || fault->stage != stage) return;
  switch (fault->action) {
    case FaultAction::segv:
      std::raise(SIGSEGV);
      // A handler may have returned (a worker reporting its stage); make sure we still die of it.
      std::signal(SIGSEGV, SIG_DFL);
      std::raise(SIGSEGV);
      std::abort();
    case FaultAction::abort: std::abort();
    case FaultAction::hang:
    case FaultAction::stall:  // a worker that sleeps is idle: the same as hang natively
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    case FaultAction::oom: allocate_until_failure(/*touch=*/true); return;
    case FaultAction::oom_crash: {
      auto held = allocate_until_failure(/*touch=*/false);
      std::raise(SIGSEGV);
      std::signal(SIGSEGV, SIG_DFL);  // a handler may have returned: die of it still
      std::raise(SIGSEGV);
      std::abort();
    }
    case FaultAction::null_result: return;
    case FaultAction::device_lost: return;  // only browser backends can lose a device on purpose
  }
}

bool wants_null(const std::optional<TestFault>& fault, Stage stage) {
  return fault && fault->stage == stage && fault->action == FaultAction::null_result;
}

}  // namespace parity::backend
