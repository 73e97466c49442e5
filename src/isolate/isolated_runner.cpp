#include "isolate/isolated_runner.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "backend/ort/ort_telemetry.h"
#include "core/child_process.h"
#include "core/interrupt.h"
#include "core/json_io.h"
#include "core/scratch_dir.h"
#include "isolate/frame_io.h"
#include "isolate/memory_cap.h"
#include "isolate/protocol.h"
#include "isolate/vulkan_layer.h"

namespace parity::isolate {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kLogKeepBytes = 64 * 1024;

void append_log(std::string& log, int fd) {
  char chunk[8192];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    log.append(chunk, static_cast<std::size_t>(n));
  }
  if (log.size() > kLogKeepBytes) log.erase(0, log.size() - kLogKeepBytes);
}

// The last non-empty line of the worker log that is not known noise, for error messages.
std::string last_log_line(const std::string& log) {
  std::size_t end = log.size();
  while (end > 0) {
    std::size_t start = log.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    std::string line = log.substr(start, end - start);
    end = start == 0 ? 0 : start - 1;
    if (line.empty() || line.find("XDG_RUNTIME_DIR") != std::string::npos) continue;
    return line;
  }
  return {};
}

bool log_says_oom(const std::string& log) {
  for (const char* needle : {"std::bad_alloc", "Failed to allocate", "out of memory", "Out of memory"})
    if (log.find(needle) != std::string::npos) return true;
  return false;
}

Error with_backend(Error e, const std::string& label) {
  if (e.backend.empty()) e.backend = label;
  return e;
}

std::string with_log_line(std::string message, const std::string& log) {
  const std::string line = last_log_line(log);
  if (!line.empty()) message += "; last worker output: " + line;
  return message;
}

// What the worker sent back before the parent stopped listening, and why it stopped.
struct WorkerReply {
  std::vector<NamedTensor> outputs;
  std::optional<backend::RunResult> result;
  std::optional<Error> reported;
  bool timed_out = false, over_memory = false, stopped = false;
  uint64_t peak_rss = 0;
};

// The worker process, with TMPDIR inside `scratch` and the environment `launch` adds.
Result<ChildProcess> spawn_worker(const IsolationLimits& limits, const WorkerLaunch& launch,
                                  const ScratchDir& scratch) {
  SpawnOptions so;
  so.exe = launch.worker_exe.empty() ? current_executable() : launch.worker_exe;
  so.args = {"worker"};
  so.env_set = backend::ort::ort_telemetry_off_env();
  so.env_set.emplace_back("TMPDIR", scratch.str());
  so.env_set.insert(so.env_set.end(), launch.env.begin(), launch.env.end());
  so.env_unset = {"PARITY_TEST_FAULT"};  // the fault travels in the request, for this worker only
  so.max_data_bytes = limits.max_memory_bytes;
  return ChildProcess::spawn(so);
}

void send_request(ChildProcess& child, const backend::BackendSpec& spec, const backend::RunRequest& request,
                  const WorkerLaunch& launch) {
  // A failed write means the worker already died; what it left behind says why, in outcome_of.
  if (write_frame(child.request_fd(), FrameType::request, encode_request(spec, request, launch.test_fault))
          .ok()) {
    bool written = true;
    for (const auto& input : request.inputs)
      if (written) written = write_tensor_frame(child.request_fd(), input).ok();
    for (const auto& set : request.more_inputs)
      for (const auto& input : set)
        if (written) written = write_tensor_frame(child.request_fd(), input).ok();
  }
  child.close_request();
}

// Decodes the frames `reader` holds into `reply`, up to the first result or error.
void take_frames(FrameReader& reader, const std::string& label, Stage& last_stage, WorkerReply& reply) {
  for (;;) {
    auto next = reader.next();
    if (!next.ok()) {
      reply.reported = with_backend(next.error(), label);
      break;
    }
    if (!*next) break;
    Frame& f = **next;
    switch (f.type) {
      case FrameType::stage: last_stage = stage_from_string(f.text()).value_or(last_stage); break;
      case FrameType::tensor: {
        auto t = decode_tensor(std::move(f.payload));
        if (!t.ok())
          reply.reported = with_backend(t.error(), label);
        else
          reply.outputs.push_back(std::move(t).value());
        break;
      }
      case FrameType::result: {
        auto r = decode_result(f.text());
        if (!r.ok())
          reply.reported = with_backend(r.error(), label);
        else
          reply.result = std::move(r).value();
        break;
      }
      case FrameType::error:
        reply.reported =
            with_backend(error_from_json(nlohmann::json::parse(f.text(), nullptr, false)), label);
        break;
      case FrameType::request: break;  // never sent by a worker
    }
    if (reply.result || reply.reported) break;
  }
}

// Reads the worker's reply and log pipes until it answers, closes its reply pipe, or runs out of
// time or memory, or the user interrupts. The log goes to out.worker_log, stages to out.last_stage.
void watch_worker(ChildProcess& child, const IsolationLimits& limits, Clock::time_point deadline,
                  const std::string& label, IsolatedRun& out, WorkerReply& reply) {
  FrameReader reader;
  bool reply_open = true, log_open = true;
  while (reply_open && !reply.result && !reply.reported) {
    if (Clock::now() >= deadline) {
      reply.timed_out = true;
      break;
    }
    if (interrupted()) {
      reply.stopped = true;
      break;
    }
    pollfd fds[2] = {{child.reply_fd(), POLLIN, 0},
                     {child.log_fd(), static_cast<short>(log_open ? POLLIN : 0), 0}};
    ::poll(fds, 2, 100);
    if (fds[1].revents) {
      append_log(out.worker_log, child.log_fd());
      if (fds[1].revents & (POLLHUP | POLLERR) && !(fds[1].revents & POLLIN)) log_open = false;
    }
    if (fds[0].revents) {
      auto fed = reader.feed(child.reply_fd());
      if (!fed.ok() || !*fed) reply_open = false;
      take_frames(reader, label, out.last_stage, reply);
    }
    if (limits.max_memory_bytes) {
      const uint64_t rss = child.resident_bytes();
      reply.peak_rss = std::max(reply.peak_rss, rss);
      if (rss > limits.max_memory_bytes) {
        reply.over_memory = true;
        break;
      }
    }
  }
}

// Kills a worker the parent gave up on and waits for it to exit; how it ended, if known.
std::optional<ExitStatus> reap_worker(ChildProcess& child, Clock::time_point deadline, WorkerReply& reply,
                                      std::string& log) {
  if (reply.timed_out || reply.over_memory || reply.stopped) child.kill_group(SIGKILL);
  // After a reply the worker exits by itself; give it the rest of the deadline, then kill it.
  std::optional<ExitStatus> status;
  while (!(status = child.try_wait())) {
    if (Clock::now() >= deadline) {
      child.kill_group(SIGKILL);
      status = child.wait();
      if (!reply.result && !reply.reported) reply.timed_out = true;
      break;
    }
    append_log(log, child.log_fd());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  append_log(log, child.log_fd());
  return status;
}

// The kernel's OOM-kill count around one worker's life: a SIGKILL Parity did not send is the OOM
// killer's only if it rose.
struct OomKills {
  std::optional<uint64_t> before, after;
  bool rose() const { return before && after && *after > *before; }
  bool known() const { return before && after; }
};

// The error for a worker that ended without a reply: it crashed, hit its memory cap, was OOM
// killed or killed from outside, or exited on its own. (Parity's own kills, for a timeout, the
// memory watch or an interrupt, never get here.)
Error ended_without_reply(const std::optional<ExitStatus>& status, const IsolatedRun& out,
                          const IsolationLimits& limits, const OomKills& kills) {
  const std::string stage_name(to_string(out.last_stage));
  if (status && status->signaled) {
    const std::string sig = signal_name(status->signal);
    const std::string cap = std::to_string(limits.max_memory_bytes >> 20) + " MiB";
    Error e;
    if (status->signal == SIGKILL && kills.rose()) {
      e = make_error(ErrorKind::oom, out.last_stage,
                     "worker killed by the kernel's OOM killer (SIGKILL) in stage " + stage_name,
                     "the machine ran out of memory: give the worker a cap it fits in (--max-memory), use "
                     "smaller inputs, or run fewer jobs at once");
    } else if (status->signal == SIGKILL) {
      e = make_error(
          ErrorKind::crashed, out.last_stage,
          "worker killed by SIGKILL from outside Parity in stage " + stage_name +
              (kills.known() ? " (not the OOM killer: the kernel's OOM-kill count did not change)"
                             : " (the OOM killer or another process: /proc/vmstat is unreadable)"),
          "something on this machine killed the worker (kill -9, a supervisor, a job limit); rerun");
    } else if (limits.max_memory_bytes && out.worker_log.find(kCapCrashMarker) != std::string::npos) {
      e = make_error(ErrorKind::oom, out.last_stage,
                     "worker hit its --max-memory cap of " + cap + " in stage " + stage_name +
                         " and died of " + sig + " (native code used an allocation that had failed)",
                     "raise --max-memory, or use smaller inputs (--dim/--shape)");
    } else {
      const bool oom = log_says_oom(out.worker_log);
      e = make_error(oom ? ErrorKind::oom : ErrorKind::crashed, out.last_stage,
                     with_log_line("worker killed by " + sig + " in stage " + stage_name, out.worker_log),
                     oom ? "the worker ran out of memory; try smaller inputs or raise --max-memory"
                         : "the backend crashed in native code; Parity isolated it. Rerun this backend alone "
                           "with --save-io to get a reproducible case");
    }
    e.signal = status->signal;
    return e;
  }
  return make_error(ErrorKind::error, out.last_stage,
                    with_log_line("worker exited with code " + std::to_string(status ? status->code : -1) +
                                      " without a result in stage " + stage_name,
                                  out.worker_log),
                    "the worker binary must be the same Parity build as the caller");
}

// The run's result from what the worker sent and how it ended.
Result<backend::RunResult> outcome_of(WorkerReply& reply, const std::optional<ExitStatus>& status,
                                      const IsolatedRun& out, const IsolationLimits& limits,
                                      const std::string& label, const OomKills& kills) {
  const std::string stage_name(to_string(out.last_stage));
  if (reply.stopped) {
    Error e =
        make_error(ErrorKind::interrupted, out.last_stage,
                   "interrupted in stage " + stage_name + "; worker killed", "rerun to get this result");
    return with_backend(std::move(e), label);
  }
  if (reply.over_memory) {
    Error e = make_error(ErrorKind::oom, out.last_stage,
                         "worker resident memory reached " + std::to_string(reply.peak_rss >> 20) +
                             " MiB, over --max-memory " + std::to_string(limits.max_memory_bytes >> 20) +
                             " MiB; killed",
                         "raise --max-memory, or use smaller inputs (--dim/--shape)");
    return with_backend(std::move(e), label);
  }
  if (reply.timed_out) {
    Error e = make_error(
        ErrorKind::timeout, out.last_stage,
        with_log_line("no result after " + std::to_string(limits.timeout_s) + " s in stage " + stage_name +
                          "; worker killed",
                      out.worker_log),
        "raise --timeout if the backend is just slow (WebGPU on SwiftShader is 100x slower than a GPU)");
    return with_backend(std::move(e), label);
  }
  if (reply.result) {
    // The tensor frames came set by set: the outputs, then each further input set's.
    std::size_t more = 0;
    for (const auto& set : reply.result->more_outputs) more += set.size();
    if (more > reply.outputs.size())
      return with_backend(protocol_error("the worker announced more outputs than it sent"), label);
    auto next = reply.outputs.end() - static_cast<std::ptrdiff_t>(more);
    for (auto& set : reply.result->more_outputs)
      for (auto& tensor : set) tensor = std::move(*next++);
    reply.outputs.resize(reply.outputs.size() - more);
    reply.result->outputs = std::move(reply.outputs);
    return std::move(*reply.result);
  }
  if (reply.reported) {
    if (reply.reported->stage == Stage::none) reply.reported->stage = out.last_stage;
    return std::move(*reply.reported);
  }
  return with_backend(ended_without_reply(status, out, limits, kills), label);
}

}  // namespace

Result<std::optional<backend::TestFault>> test_fault_for(const std::string& env_value,
                                                         const std::string& label) {
  std::optional<backend::TestFault> chosen;
  std::size_t pos = 0;
  while (pos <= env_value.size()) {
    std::size_t comma = env_value.find(',', pos);
    std::string item = env_value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? env_value.size() + 1 : comma + 1;
    if (item.empty()) continue;
    std::string target;
    if (auto at = item.find('@'); at != std::string::npos) {
      target = item.substr(at + 1);
      item.resize(at);
    }
    auto fault = backend::parse_test_fault(item);
    if (!fault.ok()) return fault.error();
    if (target.empty() || target == label) chosen = *fault;
  }
  return chosen;
}

IsolatedRun run_isolated(const backend::BackendSpec& spec, const backend::RunRequest& request,
                         const IsolationLimits& limits, const WorkerLaunch& launch) {
  IsolatedRun out;
  const auto t0 = Clock::now();
  auto finish = [&](Result<backend::RunResult> r) {
    out.result = std::move(r);
    out.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return std::move(out);
  };

  // The parent owns the worker's scratch space: TMPDIR points into a folder made here and removed
  // after the worker is reaped, so what the worker or its libraries leave in the temp directory
  // (ORT profiles, driver caches, telemetry logs) goes with it even when it crashes or is killed.
  // Declared before the child so it is removed after the child is gone.
  auto scratch = ScratchDir::create("parity-worker", Stage::spawn_worker);
  if (!scratch.ok()) return finish(with_backend(scratch.error(), spec.label));
  WorkerLaunch with_layer = launch;
  if (!spec.vulkan_faults.empty()) {  // vk-mask=: the device this backend sees reports less
    const char* explicit_layer = std::getenv("PARITY_CHAOS_LAYER");
    auto layer = find_layer(explicit_layer ? explicit_layer : "");
    if (!layer.ok()) return finish(with_backend(layer.error(), spec.label));
    for (auto& kv : layer_env(*layer, spec.vulkan_faults)) with_layer.env.push_back(std::move(kv));
  }
  OomKills kills{kernel_oom_kills(), std::nullopt};
  auto spawned = spawn_worker(limits, with_layer, *scratch);
  if (!spawned.ok()) return finish(with_backend(spawned.error(), spec.label));
  ChildProcess child = std::move(spawned).value();
  send_request(child, spec, request, with_layer);

  const auto deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_s));
  WorkerReply reply;
  watch_worker(child, limits, deadline, spec.label, out, reply);
  const std::optional<ExitStatus> status = reap_worker(child, deadline, reply, out.worker_log);
  out.peak_rss_bytes = std::max(child.peak_resident_bytes(), reply.peak_rss);
  kills.after = kernel_oom_kills();
  auto result = outcome_of(reply, status, out, limits, spec.label, kills);
  if (result.ok() && result->more_outputs.size() != request.more_inputs.size())
    return finish(
        with_backend(protocol_error("the worker ran " + std::to_string(result->more_outputs.size()) +
                                    " further input sets of " + std::to_string(request.more_inputs.size())),
                     spec.label));
  return finish(std::move(result));
}

}  // namespace parity::isolate
