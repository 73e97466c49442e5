// bisect/bisect.h: `parity bisect`: find the first tensor where a target backend departs from the
// reference, tell an error born at a node from one inherited from upstream, confirm the culprit on
// a model holding only that node (growing it until it reproduces), and write a repro folder.
//
// Every backend run goes through an isolate::BackendRunner, so a backend that crashes while tensors
// are exposed is a recorded event, not the end of the bisect.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "isolate/backend_runner.h"
#include "isolate/isolated_runner.h"
#include "model/model_surgery.h"
#include "parity/metrics.h"
#include "parity/result.h"
#include "probe/input_plan.h"
#include "probe/probe.h"

namespace parity::bisect {

struct BisectOptions {
  std::filesystem::path model_path;
  backend::BackendSpec target;
  backend::BackendSpec reference;  // default: cpu
  std::string target_text;         // the spec as the user wrote it, for the repro command
  std::string reference_text = "cpu";
  probe::InputSettings inputs;         // samples is forced to 1: bisect compares one input set
  std::optional<Tolerance> tolerance;  // --atol/--rtol for every tensor; default by dtype
  isolate::IsolationLimits limits;
  // Bytes of intermediates one exposed run may return. Larger models are narrowed in rounds that
  // expose evenly spaced checkpoints, so the cost grows with log(nodes) instead of all at once.
  uint64_t exposure_budget_bytes = uint64_t{1} << 30;
  std::string worker_exe;                          // empty = this executable
  std::string test_fault_env;                      // PARITY_TEST_FAULT: every run
  std::string exposed_test_fault_env;              // PARITY_TEST_FAULT_EXPOSED: only runs with extra outputs
  int max_grow_levels = 4;                         // producer levels added around the culprit at most
  std::optional<std::filesystem::path> repro_dir;  // --out DIR
  std::vector<std::string> argv;                   // the exact command, for the repro README
  isolate::BackendRunner* runner = nullptr;        // shared runner (one browser for all rounds); null = own
  // Set by run_bisect when it bisects a rewritten copy (Ifs inlined): the file the user gave, and
  // how the copy differs from it, for the report and the repro README.
  std::filesystem::path source_model;
  std::vector<std::string> rewrite_notes;
};

// The divergence rule per tensor: `verdict` uses probe's metrics and tolerances.
struct TensorReport {
  std::string name;
  std::string node;
  std::string op_type;
  int order = 0;
  bool compared = false;  // false: never exposed (outside the narrowed range)
  Verdict verdict = Verdict::match;
  std::string failed_rule;
  std::string detail;
  std::optional<Comparison> metrics;
  Tolerance tolerance;
};

// The row of tensor `name` in `tensors`; nullptr when it has none.
const TensorReport* row_named(const std::vector<TensorReport>& tensors, const std::string& name);

// The matching tensor that came closest to its bound (largest Comparison::bound_used): the
// margin a clean run had, 1 / bound_used times its error (docs/bisect.md, "Margins").
struct Margin {
  std::string tensor;
  std::string node;
  std::string op_type;
  double bound_used = 0;
  double headroom() const;  // 1 / bound_used; infinity when every compared tensor was exact
};

// The margin of the matching compared tensors in `tensors`; nullopt when none was compared.
std::optional<Margin> closest_match(const std::vector<TensorReport>& tensors);

struct FirstDivergent {
  std::string tensor;
  std::string node;
  std::string op_type;
  int order = 0;
  // Its output diverges and no compared runtime input explains it: each input matches, or carries
  // an error kBornGain times smaller relative to its own scale (inherited noise, not the cause).
  bool born_here = false;
  bool weight_path = false;        // reads no other node's output (graph inputs, initializers, Constants)
  bool reads_graph_input = false;  // with weight_path: a first-layer node; without: a weight-only node
  // A comparison (Equal, Greater, ArgMax, TopK, ...) whose float inputs all match within their
  // bounds yet whose output differs: rounding noise tipped near-ties the other way. A real
  // difference in the outputs, not a miscompute of the node; later miscomputes are preferred.
  bool near_tie = false;
  std::optional<Comparison> metrics;
  std::string failed_rule;
  std::string detail;
};

struct Isolation {
  bool attempted = false;
  bool reproduces = false;
  std::vector<std::string> nodes;  // the smallest reproducing subgraph (or the largest tried)
  std::vector<std::string> outputs;
  std::optional<Comparison> metrics;  // target vs reference on the isolated model's first output
  std::string note;
};

// Where a bisect's time went: one entry per backend run, in the order they were started.
struct RunCost {
  std::string backend;   // the BackendSpec's label
  std::string what;      // "plain run", "exposing 12 tensors", "isolated 1-node model", ...
  double start_ms = 0;   // since the bisect started
  double wall_ms = 0;    // the worker's spawn to reap (or the browser round trip)
  double create_ms = 0;  // of which session creation (0 when the run failed)
  double run_ms = 0;     // of which the measured inference
  uint64_t output_bytes = 0;
  bool ok = false;
};

struct BisectReport {
  std::string parity_version;
  std::string model;
  std::string target;
  std::string reference;
  uint64_t seed = 0;
  std::string ort_version;
  std::string adapter;
  backend::KeyValues target_properties;  // the target's RunResult::properties (browser: bundle, version)
  bool final_mismatch = false;           // the plain target run disagrees on a graph output
  bool exposure_reproduces = true;       // the exposed run shows the final mismatch too
  std::string method = "exposed";        // exposed | extracted (fallback)
  std::vector<std::string> notes;        // human lines: "the exposed run crashed ...", "weight path ..."
  std::vector<TensorReport> tensors;     // topological order
  std::optional<FirstDivergent> first_divergent;
  std::vector<std::string> path;  // tensor names from a graph input to the culprit
  Isolation isolation;
  std::vector<std::string> skipped_subgraphs;
  int backend_runs = 0;
  double wall_ms = 0;
  double plain_run_ms = 0;  // wall time of the plain target run, for the cost ratio
  std::vector<RunCost> runs;
  std::optional<std::filesystem::path> repro_dir;
  std::optional<Error> repro_error;   // --out could not be written (names the file and the reason)
  std::optional<Error> target_error;  // the target could not be run at all (exit 3)
  // Stopped by a signal: the compared rows of `tensors` stand, and nothing else is a verdict
  // (no first divergent tensor, no "no divergence", no target error).
  bool interrupted = false;
};

using ProgressSink = probe::ProgressSink;

// How much larger, relative to its reference's scale, a node's output error must be than each of
// its inputs' for the error to count as born at the node although an input already diverges:
// inherited rounding noise keeps its relative size through most ops, a miscompute multiplies it.
inline constexpr double kBornGain = 16;

// Runs the bisect. Result error only for a bad invocation or an unreadable model; a target that
// cannot run is report.target_error.
Result<BisectReport> run_bisect(const BisectOptions& options, const ProgressSink& progress = {});

// The divergence rule on its own (used by run_bisect, unit-tested): given the per-tensor verdicts
// and the graph, the earliest divergent tensor and whether its error is born there. Walks
// upstream from the earliest divergent compared tensor while one of its producer's runtime inputs
// diverges too. Returns nullopt when no compared tensor diverges.
std::optional<FirstDivergent> find_first_divergent(const model::GraphOutline& graph,
                                                   const std::vector<TensorReport>& tensors);

// Every divergent tensor whose error is born at its node (see FirstDivergent::born_here), in
// topological order, after the one find_first_divergent names (which comes first even when its
// error is inherited from an input that was not compared). Bisect isolates them in turn when the
// first does not reproduce alone: rounding noise just over the bound can come before the real culprit.
std::vector<FirstDivergent> find_divergent_candidates(const model::GraphOutline& graph,
                                                      const std::vector<TensorReport>& tensors);

// Tensor names from a graph input to `tensor`, following each node's first runtime input that
// is itself a node output or graph input (initializers are weights, not the data path).
std::vector<std::string> path_to(const model::GraphOutline& graph, const std::string& tensor);

// Splits `order` (tensor indices) into checkpoints no larger than `budget` bytes in total, evenly
// spaced, always keeping the last one; `bytes[i]` is the estimate for tensor i.
std::vector<int> pick_checkpoints(const std::vector<int>& order, const std::vector<uint64_t>& bytes,
                                  uint64_t budget);

}  // namespace parity::bisect
