#include "backend/ort/ort_session.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <new>
#include <stop_token>
#include <thread>

#include "backend/ort/ort_api.h"
#include "backend/ort/ort_guard.h"
#include "backend/ort/ort_library.h"
#include "backend/ort/ort_profile.h"
#include "backend/ort/ort_providers.h"
#include "backend/ort/ort_telemetry.h"
#include "backend/ort/ort_tensor.h"
#include "backend/vulkan_adapter.h"
#include "core/interrupt.h"
#include "core/scratch_dir.h"

namespace parity::backend::ort {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

Result<GraphOptimizationLevel> parse_opt_level(const OrtGuard& guard, std::string_view level) {
  if (level == "all") return ORT_ENABLE_ALL;
  if (level == "extended") return ORT_ENABLE_EXTENDED;
  if (level == "basic") return ORT_ENABLE_BASIC;
  if (level == "disabled") return ORT_DISABLE_ALL;
  return guard.error(ErrorKind::bad_input, "unknown graph optimization level '" + std::string(level) + "'",
                     "use all, extended, basic or disabled");
}

// spec.ep as a short name: "WebGPU" and "WebGpuExecutionProvider" both mean "webgpu".
std::string normalize_ep(std::string_view ep) {
  if (ep.ends_with("ExecutionProvider")) return short_ep_name(ep);
  return lowercase(ep);
}

// The ORT objects of one session, released in reverse order of declaration (session first). The
// profile folder is declared first so it outlives them: a session released after a failed run
// still writes its profile on the way out, and that file must land in (and go with) this folder.
struct SessionHandles {
  std::optional<ScratchDir> profile_dir;
  Owned<OrtEnv> env;
  Owned<OrtSessionOptions> options;
  Owned<OrtSession> session;
};

// What one Run reads and writes, kept until its outputs are read; the input values are declared
// after the buffers they wrap.
struct RunIo {
  OrtAllocator* allocator = nullptr;  // ORT's default allocator, borrowed once per run
  Owned<OrtMemoryInfo> cpu_memory;
  InputBuffers buffers;
  std::vector<Owned<OrtValue>> inputs;
  std::vector<std::string> output_names;
  std::vector<Owned<OrtValue>> outputs;  // one per output name after a Run
  AllocatedString profile_file;          // set when the first Run was profiled
};

// The steps of opening and running, each checked through the caller's guard.
// An in-process Run cannot poll for Ctrl-C, and a Loop or a large model can run for minutes: while
// it runs, a watcher sets ORT's terminate flag once a stop is requested (core/interrupt.h), and
// ORT returns between kernels. Only where a signal can request a stop (the CLI installed its
// handlers): an application using the guard pays nothing.
class StopWatcher {
 public:
  StopWatcher(const OrtApi* api, OrtRunOptions* options) {
    if (!interrupt_handlers_installed()) return;
    thread_ = std::jthread([api, options](std::stop_token stop) {
      std::mutex m;
      std::condition_variable_any wake;
      std::unique_lock lock(m);
      while (!stop.stop_requested()) {
        if (interrupted()) {
          release(api, api->RunOptionsSetTerminate(options));  // a status we cannot act on
          return;
        }
        wake.wait_for(lock, stop, std::chrono::milliseconds(50), [] { return false; });
      }
    });
  }
  StopWatcher(const StopWatcher&) = delete;
  StopWatcher& operator=(const StopWatcher&) = delete;

 private:
  std::jthread thread_;  // stopped and joined on destruction
};

class Steps {
 public:
  explicit Steps(const BackendSpec& spec) : spec_(spec) {}

  // The env and session options: CreateEnv, then every session setting the spec asks for.
  // `profile_dir` is made here when node counting needs ORT's profile.
  Status create_env(OrtGuard& guard, const std::string& ep, SessionHandles& state, RunResult& result) {
    const OrtApi* api = guard.api();
    if (ep == "webgpu") {
      // Must precede CreateEnv: Dawn's instance, and with it the Vulkan driver, is bound to the env.
      PARITY_ASSIGN_OR_RETURN(choice, select_webgpu_adapter(spec_.webgpu_adapter));
      result.adapter = choice.adapter;
      result.notes.push_back(choice.note);
      // Under WebGPU's names, as the browser backends report them (Dawn derives those from these).
      if (choice.device && choice.device->max_storage_buffer_range > 0)
        result.properties.emplace_back("adapter.limits.maxStorageBufferBindingSize",
                                       std::to_string(choice.device->max_storage_buffer_range));
      if (choice.device && choice.device->max_buffer_size > 0)
        result.properties.emplace_back("adapter.limits.maxBufferSize",
                                       std::to_string(choice.device->max_buffer_size));
    }
    PARITY_ASSIGN_OR_RETURN(level, parse_opt_level(guard, spec_.opt_level));
    PARITY_ASSIGN_OR_RETURN(env, guard.create<OrtEnv>("CreateEnv", [&](OrtEnv** out) {
      return api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "parity", out);
    }));
    state.env = std::move(env);
    // Clean hands: nothing leaves the machine. The environment already switched the library's
    // telemetry off before it loaded (ort_telemetry_off_env, load_ort_library); this covers the events of
    // a library that only honours the API call. PARITY_ORT_TELEMETRY=on keeps ORT's default.
    if (!ort_telemetry_allowed())
      PARITY_TRY(
          guard.call("DisableTelemetryEvents", [&] { return api->DisableTelemetryEvents(state.env.get()); }));
    PARITY_ASSIGN_OR_RETURN(
        options, guard.create<OrtSessionOptions>("CreateSessionOptions", [&](OrtSessionOptions** out) {
          return api->CreateSessionOptions(out);
        }));
    state.options = std::move(options);
    return configure_options(guard, state.options.get(), ep, level, state.profile_dir, result);
  }

  Status configure_options(OrtGuard& guard, OrtSessionOptions* so, const std::string& ep,
                           GraphOptimizationLevel level, std::optional<ScratchDir>& profile_dir,
                           RunResult& result) {
    const OrtApi* api = guard.api();
    PARITY_TRY(guard.call("SetSessionGraphOptimizationLevel",
                          [&] { return api->SetSessionGraphOptimizationLevel(so, level); }));
    if (spec_.intra_op_threads > 0)
      PARITY_TRY(guard.call("SetIntraOpNumThreads",
                            [&] { return api->SetIntraOpNumThreads(so, spec_.intra_op_threads); }));
    // ORT refuses every session of the CPU EP itself when CPU fallback is disabled, so the
    // setting only applies to other EPs.
    if (!spec_.allow_fallback && ep == "cpu") {
      result.notes.push_back("allow_fallback=false ignored: the CPU EP is the fallback");
    } else if (!spec_.allow_fallback) {
      PARITY_TRY(guard.call("AddSessionConfigEntry(session.disable_cpu_ep_fallback)", [&] {
        return api->AddSessionConfigEntry(so, "session.disable_cpu_ep_fallback", "1");
      }));
    }
    if (!spec_.optimized_model_path.empty())
      PARITY_TRY(guard.call("SetOptimizedModelFilePath", [&] {
        return api->SetOptimizedModelFilePath(so, spec_.optimized_model_path.c_str());
      }));
    for (const auto& [key, value] : spec_.session_config)
      PARITY_TRY(guard.call("AddSessionConfigEntry(" + key + ")",
                            [&] { return api->AddSessionConfigEntry(so, key.c_str(), value.c_str()); }));
    if (spec_.count_nodes) {
      auto dir = ScratchDir::create("parity-ort", Stage::create_env);
      if (!dir.ok())
        return guard.error(ErrorKind::io, dir.error().message, "check TMPDIR, or run without node counting");
      profile_dir.emplace(std::move(dir).value());
      const std::string prefix = (profile_dir->path() / "ort_profile").string();
      PARITY_TRY(guard.call("EnableProfiling", [&] { return api->EnableProfiling(so, prefix.c_str()); }));
    }
    return ok_status();
  }

  // Finds the library's provider for `ep` and appends it to `so`; its full ORT name.
  Result<std::string> choose_provider(OrtGuard& guard, OrtSessionOptions* so, const std::string& ep,
                                      const OrtLibrary& lib, const RunResult& result) {
    PARITY_ASSIGN_OR_RETURN(providers, available_providers(guard));
    std::vector<std::string> available;
    std::string provider_name;
    for (const std::string& p : providers) {
      available.push_back(short_ep_name(p));
      if (available.back() == ep) provider_name = p;
    }
    if (provider_name.empty())
      return guard.error(ErrorKind::unavailable,
                         "EP '" + spec_.ep + "' is not available in ONNX Runtime " + lib.version,
                         "available in " + lib.path + ": " + join(available));
    Status appended = append_provider(guard, so, ep, provider_name);
    if (!appended.ok()) {
      Error e = appended.error();
      // ORT names no file when a provider library fails to load: find which one, and why.
      if (e.kind == ErrorKind::unavailable && e.message.find("Failed to load") != std::string::npos)
        if (std::string why = diagnose_provider_library(lib.file, ep); !why.empty()) e.hint = why;
      if (!result.adapter.empty())
        e.hint += (e.hint.empty() ? "" : "; ") + std::string("Vulkan device: ") + result.adapter;
      return e;
    }
    return provider_name;
  }

  // The allocator, output names and input values of a Run, into `io`.
  Status prepare_run(OrtGuard& guard, OrtSession* sess, const RunView& request, RunIo& io) {
    const OrtApi* api = guard.api();
    PARITY_ASSIGN_OR_RETURN(
        allocator, guard.borrow<OrtAllocator>("GetAllocatorWithDefaultOptions", [&](OrtAllocator** out) {
          return api->GetAllocatorWithDefaultOptions(out);
        }));
    io.allocator = allocator;
    PARITY_ASSIGN_OR_RETURN(output_names, resolve_output_names(guard, sess, allocator, request.output_names));
    io.output_names = std::move(output_names);
    PARITY_ASSIGN_OR_RETURN(cpu_memory,
                            guard.create<OrtMemoryInfo>("CreateCpuMemoryInfo", [&](OrtMemoryInfo** out) {
                              return api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, out);
                            }));
    io.cpu_memory = std::move(cpu_memory);
    for (const NamedTensor& input : request.inputs) {
      PARITY_ASSIGN_OR_RETURN(value,
                              make_input_value(guard, io.cpu_memory.get(), allocator, input, io.buffers));
      io.inputs.push_back(std::move(value));
    }
    return ok_status();
  }

  // The warm-up runs and the measured one (the last); the first is profiled when `profile`.
  Status run_session(OrtGuard& guard, OrtSession* sess, const RunView& request, bool profile, RunIo& io,
                     RunResult& result) {
    const OrtApi* api = guard.api();
    std::vector<const OrtValue*> input_ptrs;
    std::vector<const char*> input_names;
    for (std::size_t i = 0; i < io.inputs.size(); ++i) {
      input_ptrs.push_back(io.inputs[i].get());
      input_names.push_back(request.inputs[i].name.c_str());
    }
    std::vector<const char*> output_cnames;
    for (const std::string& n : io.output_names) output_cnames.push_back(n.c_str());

    PARITY_ASSIGN_OR_RETURN(run_options,
                            guard.create<OrtRunOptions>("CreateRunOptions", [&](OrtRunOptions** out) {
                              return api->CreateRunOptions(out);
                            }));
    const int total_runs = 1 + std::max(0, request.warmup_runs);
    for (int i = 0; i < total_runs; ++i) {
      std::vector<OrtValue*> raw(output_cnames.size(), nullptr);
      const auto run_start = Clock::now();
      Status ran = [&] {
        const StopWatcher watcher(api, run_options.get());
        return guard.call("Run", [&] {
          return api->Run(sess, run_options.get(), input_names.data(), input_ptrs.data(), input_ptrs.size(),
                          output_cnames.data(), output_cnames.size(), raw.data());
        });
      }();
      result.run_ms = ms_since(run_start);
      io.outputs.clear();
      for (OrtValue* v : raw) io.outputs.emplace_back(v, Releaser<OrtValue>{api});  // owned before the check
      if (!ran.ok() && interrupted())  // ORT stopped at the terminate flag: a stop, not a failure
        return guard.error(ErrorKind::interrupted, "the run was stopped by a signal (Ctrl-C or SIGTERM)");
      PARITY_TRY(ran);
      // Only the first run is profiled, so warm-up runs keep the measured one free of its cost.
      if (i == 0 && profile) {
        PARITY_ASSIGN_OR_RETURN(file,
                                guard.create_string("SessionEndProfiling", io.allocator, [&](char** out) {
                                  return api->SessionEndProfiling(sess, io.allocator, out);
                                }));
        io.profile_file = std::move(file);
        if (total_runs == 1)
          result.notes.push_back("run_ms includes profiling (count_nodes without warm-up runs)");
      }
    }
    return ok_status();
  }

  // The outputs as tensors, and node counts from the profile when there is one.
  Status read_outputs(OrtGuard& guard, const RunIo& io, const std::string& provider_name, RunResult& result) {
    for (std::size_t i = 0; i < io.output_names.size(); ++i) {
      PARITY_ASSIGN_OR_RETURN(tensor, read_output_value(guard, io.output_names[i], io.outputs[i].get()));
      result.outputs.push_back({io.output_names[i], std::move(tensor)});
    }
    if (!io.profile_file) return ok_status();
    auto placement = read_profile_file(io.profile_file.get());
    if (placement.ok()) {
      const NodeCounts counts = count_nodes(*placement);
      auto count_of = [&](const std::string& name) {
        auto it = counts.find(name);
        return it == counts.end() ? int64_t{0} : it->second;
      };
      result.nodes_on_backend = count_of(provider_name);
      result.nodes_on_cpu = count_of("CPUExecutionProvider");
      // The nodes the EP under test left to the CPU, by name: what lint reports as not taken.
      if (provider_name != "CPUExecutionProvider")
        if (const auto cpu = placement->find("CPUExecutionProvider"); cpu != placement->end())
          result.cpu_nodes.assign(cpu->second.begin(), cpu->second.end());
    } else {
      result.notes.push_back("node counts unknown: " + placement.error().message);
    }
    return ok_status();
  }

  Status append_provider(OrtGuard& guard, OrtSessionOptions* so, const std::string& ep,
                         const std::string& provider_name) {
    const OrtApi* api = guard.api();
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : spec_.provider_options) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
    const EpName* known = find_ep_by_short_name(ep);
    const AppendMethod method = known ? known->method : AppendMethod::generic;
    // ORT's generic append accepts the full provider name too, which covers EPs not in our table.
    const std::string append_name = known ? std::string(known->append_name) : provider_name;
    switch (method) {
      case AppendMethod::none: return ok_status();
      case AppendMethod::generic:
        return guard.call("SessionOptionsAppendExecutionProvider(" + append_name + ")", [&] {
          return api->SessionOptionsAppendExecutionProvider(so, append_name.c_str(), keys.data(),
                                                            values.data(), keys.size());
        });
      case AppendMethod::cuda_v2: {
        PARITY_ASSIGN_OR_RETURN(cuda, guard.create<OrtCUDAProviderOptionsV2>(
                                          "CreateCUDAProviderOptions", [&](OrtCUDAProviderOptionsV2** out) {
                                            return api->CreateCUDAProviderOptions(out);
                                          }));
        // Only with options: Update already loads the provider bridge, so without options the
        // missing-library case is reported by the append, the call that matters.
        if (!keys.empty())
          PARITY_TRY(guard.call("UpdateCUDAProviderOptions", [&] {
            return api->UpdateCUDAProviderOptions(cuda.get(), keys.data(), values.data(), keys.size());
          }));
        return guard.call("SessionOptionsAppendExecutionProvider_CUDA_V2",
                          [&] { return api->SessionOptionsAppendExecutionProvider_CUDA_V2(so, cuda.get()); });
      }
      case AppendMethod::tensorrt_v2: {
        PARITY_ASSIGN_OR_RETURN(
            trt, guard.create<OrtTensorRTProviderOptionsV2>("CreateTensorRTProviderOptions",
                                                            [&](OrtTensorRTProviderOptionsV2** out) {
                                                              return api->CreateTensorRTProviderOptions(out);
                                                            }));
        if (!keys.empty())
          PARITY_TRY(guard.call("UpdateTensorRTProviderOptions", [&] {
            return api->UpdateTensorRTProviderOptions(trt.get(), keys.data(), values.data(), keys.size());
          }));
        return guard.call("SessionOptionsAppendExecutionProvider_TensorRT_V2", [&] {
          return api->SessionOptionsAppendExecutionProvider_TensorRT_V2(so, trt.get());
        });
      }
    }
    return ok_status();
  }

  // The graph's outputs, or the requested subset after checking each name exists.
  Result<std::vector<std::string>> resolve_output_names(OrtGuard& guard, OrtSession* sess,
                                                        OrtAllocator* allocator,
                                                        const std::vector<std::string>& requested) {
    const OrtApi* api = guard.api();
    std::size_t count = 0;
    PARITY_TRY(guard.call("SessionGetOutputCount", [&] { return api->SessionGetOutputCount(sess, &count); }));
    std::vector<std::string> names;
    for (std::size_t i = 0; i < count; ++i) {
      PARITY_ASSIGN_OR_RETURN(name, guard.create_string("SessionGetOutputName", allocator, [&](char** out) {
        return api->SessionGetOutputName(sess, i, allocator, out);
      }));
      names.emplace_back(name.get());
    }
    if (requested.empty()) return names;
    for (const std::string& r : requested)
      if (std::find(names.begin(), names.end(), r) == names.end())
        return guard.error(ErrorKind::bad_input, "the model has no output named '" + r + "'",
                           "its outputs are: " + join(names));
    return requested;
  }

 private:
  const BackendSpec& spec_;
};

}  // namespace

struct Session::State {
  BackendSpec spec;
  std::string label;
  std::optional<TestFault> fault;
  const OrtApi* api = nullptr;
  std::string provider_name;
  RunResult opened;  // runtime_version, adapter, notes, create_ms
  SessionHandles handles;
  // The first run of a counting session is profiled; the others wait for it to end profiling.
  std::mutex profile_mutex;
  std::atomic<bool> profile_pending{false};
};

Session::Session(std::unique_ptr<State> state) : state_(std::move(state)) {}
Session::~Session() = default;

const RunResult& Session::opened() const { return state_->opened; }
const BackendSpec& Session::spec() const { return state_->spec; }

Result<std::unique_ptr<Session>> Session::open(const BackendSpec& spec, const std::string& model_path,
                                               OpenOptions options) {
  auto state = std::make_unique<State>();
  state->spec = spec;
  state->label = spec.label.empty() ? spec.ep : spec.label;
  state->fault = options.fault;
  OrtGuard guard(state->label, state->fault);
  auto enter = [&](Stage stage) {
    guard.enter(stage);
    if (options.observe) options.observe(stage);
    trigger_test_fault(state->fault, stage);
  };
  // ORT's C API does not throw, but our own copies can run out of memory.
  try {
    Steps steps(state->spec);
    RunResult& facts = state->opened;
    SessionHandles& h = state->handles;

    enter(Stage::load_library);
    PARITY_ASSIGN_OR_RETURN(lib, load_ort_library(spec.ort_lib, guard));
    const OrtApi* api = options.api != nullptr ? options.api : lib->api;
    guard.set_api(api);
    state->api = api;
    facts.runtime_version = lib->version;
    facts.notes.push_back("onnxruntime " + lib->version + " (OrtApi " + std::to_string(lib->api_version) +
                          ") from " + lib->path);

    enter(Stage::create_env);
    const std::string ep = normalize_ep(spec.ep);
    PARITY_TRY(steps.create_env(guard, ep, h, facts));

    enter(Stage::append_provider);
    PARITY_ASSIGN_OR_RETURN(provider_name, steps.choose_provider(guard, h.options.get(), ep, *lib, facts));
    state->provider_name = provider_name;

    enter(Stage::create_session);
    const auto create_start = Clock::now();
    PARITY_ASSIGN_OR_RETURN(session, guard.create<OrtSession>("CreateSession", [&](OrtSession** out) {
      return api->CreateSession(h.env.get(), model_path.c_str(), h.options.get(), out);
    }));
    facts.create_ms = ms_since(create_start);
    h.session = std::move(session);
    state->profile_pending = h.profile_dir.has_value();
    return std::unique_ptr<Session>(new Session(std::move(state)));
  } catch (const std::bad_alloc&) {
    return guard.error(ErrorKind::oom, "out of memory in Parity's ORT backend");
  } catch (const std::exception& e) {
    return guard.error(ErrorKind::internal, std::string("unexpected exception: ") + e.what(),
                       "a bug in Parity: please report it");
  }
}

Result<RunResult> Session::run(const RunView& request, const StageObserver& observe) {
  State& s = *state_;
  OrtGuard guard(s.label, s.fault);
  guard.set_api(s.api);
  auto enter = [&](Stage stage) {
    guard.enter(stage);
    if (observe) observe(stage);
    trigger_test_fault(s.fault, stage);
  };
  try {
    Steps steps(s.spec);
    RunResult result = s.opened;
    enter(Stage::run);
    // Held for the whole profiled run only; once profiling ended, runs do not serialise here.
    std::unique_lock<std::mutex> profiling(s.profile_mutex, std::defer_lock);
    bool profile = false;
    if (s.profile_pending) {
      profiling.lock();
      profile = s.profile_pending.exchange(false);
      if (!profile) profiling.unlock();
    }
    RunIo io;
    PARITY_TRY(steps.prepare_run(guard, s.handles.session.get(), request, io));
    PARITY_TRY(steps.run_session(guard, s.handles.session.get(), request, profile, io, result));
    if (profiling.owns_lock()) profiling.unlock();

    enter(Stage::read_output);
    PARITY_TRY(steps.read_outputs(guard, io, s.provider_name, result));
    return result;
  } catch (const std::bad_alloc&) {
    return guard.error(ErrorKind::oom, "out of memory in Parity's ORT backend");
  } catch (const std::exception& e) {
    return guard.error(ErrorKind::internal, std::string("unexpected exception: ") + e.what(),
                       "a bug in Parity: please report it");
  }
}

}  // namespace parity::backend::ort
