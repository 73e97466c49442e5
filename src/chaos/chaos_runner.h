// chaos/chaos_runner.h: `parity chaos`: run one model once per fault, each in a fresh worker with
// VK_LAYER_PARITY_chaos loaded and told which fault to inject, and say what the backend did.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "chaos/fault_plan.h"
#include "isolate/isolated_runner.h"
#include "isolate/vulkan_layer.h"
#include "model/onnx_model.h"
#include "parity/metrics.h"
#include "parity/result.h"
#include "probe/input_plan.h"

namespace parity::chaos {

// What the backend did under one fault; names are part of the JSON contract (append-only).
enum class Outcome {
  clean_error,   // a typed error with a message (the stage says where)
  crashed,       // the worker died on a signal
  hung,          // no result before the timeout
  wrong_output,  // ran to the end, but an output mismatches the reference
  unaffected,    // ran to the end with the reference's outputs
};
std::string_view to_string(Outcome o);

// The layer's location and worker environment live in isolate (a backend spec's vk-mask= loads it
// too); chaos uses them under its own names.
using isolate::find_layer;
using isolate::layer_env;
using isolate::LayerLocation;

// One line the layer logged for an injection ("injected fault=0 spec=... call=... ...").
std::vector<std::string> injection_lines(const std::string& worker_log);

struct ChaosOptions {
  std::filesystem::path model_path;
  backend::BackendSpec backend;    // the backend under test (webgpu)
  backend::BackendSpec reference;  // default: cpu
  probe::InputSettings inputs;
  std::optional<Tolerance> tolerance;  // default: by dtype
  isolate::IsolationLimits limits;     // per worker; a fault running past timeout_s is "hung"
  FaultPlan plan;
  LayerLocation layer;
  std::string worker_exe;    // empty = this executable
  bool baseline = true;      // also run with the layer loaded and no fault (pass-through check)
  std::string repro_prefix;  // "parity chaos MODEL --backend webgpu ..." for the repro lines
};

struct FaultResult {
  PlannedFault fault;
  Outcome outcome = Outcome::unaffected;
  std::optional<Error> error;                      // for clean_error, crashed, hung
  std::vector<std::string> injections;             // what the layer logged; empty = the fault never fired
  std::string failed_output, failed_rule, detail;  // for wrong_output
  std::optional<Comparison> comparison;            // of the worst output, when comparable
  std::string adapter;
  double wall_ms = 0;
  std::string worker_log;  // tail, for crashed/hung rows
  std::string repro;       // command that reproduces this row
};

struct ChaosReport {
  std::string parity_version;
  model::ModelInfo model;
  std::string backend, reference, plan_source, layer_manifest;
  std::optional<FaultResult> baseline;  // layer loaded, no fault
  std::vector<FaultResult> faults;
  // Stopped by a signal: `faults` holds the finished ones (a fault cut short is no outcome),
  // `faults_planned` how many the plan had.
  bool interrupted = false;
  std::size_t faults_planned = 0;
  bool any_crash_or_hang() const;
};

using ProgressSink = std::function<void(const std::string& line)>;

// Runs the reference once, the baseline, then every fault. Fails only for a bad invocation, an
// unreadable model or a failing reference: fault outcomes are rows.
Result<ChaosReport> run_chaos(const ChaosOptions& options, const ProgressSink& progress = {});

// Classifies one finished worker run against the reference outputs (exposed for tests).
FaultResult classify(const PlannedFault& fault, const isolate::IsolatedRun& run,
                     const std::vector<NamedTensor>& reference, const std::optional<Tolerance>& tolerance);

}  // namespace parity::chaos
