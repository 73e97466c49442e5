// sweep/sweep.h: `parity sweep`: the matrix of backends x model variants x optimization levels x
// input sizes, each cell judged against the fp32 model on the reference backend at the same size.
//
// Cells are independent by design: a plan (every axis resolved, every backend spec in full) is a
// file, any cell of it runs alone (`--cell K`, on another machine), and finished cells stream to
// JSON-lines files that `--resume` and `merge` read back, so no finished cell is ever lost or run
// twice and a batch scheduler can spread a sweep over many machines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "isolate/backend_runner.h"
#include "isolate/isolated_runner.h"
#include "parity/result.h"
#include "probe/input_plan.h"
#include "probe/precision.h"
#include "probe/probe.h"
#include "sweep/cliff.h"

namespace parity::sweep {

// A file of the same model in another precision or export. Its inputs and outputs must have the
// names of the reference model's; its outputs are judged by the default rule of its precision.
struct Variant {
  std::string name;            // "fp32", "fp16", "int8", ...: the matrix's label
  std::filesystem::path path;  // the model file
  std::string precision;       // fp32 | fp16 | bf16 | int8 | uint8 | int4 | q4 | ...
};

// How a variant of each precision is judged (probe/precision.h), by their old names here.
using probe::judging_dtype;
using probe::kVariantMinCosine;
using probe::precision_from_name;
using probe::variant_drift_cosine;

// One point of the size axis: the last two dims (H, W) of one input. An input fed from a file
// (--input) is resized to it; a random one gets that shape.
struct SizePoint {
  std::string input;
  int64_t height = 0, width = 0;
  std::string label() const;  // "x=160x160"
};
SizePoint size_point(const SizeSearch& s, const SearchSize& size);

struct SweepPlan {
  std::filesystem::path model;     // usually fp32: the first variant and every cell's reference
  backend::BackendSpec reference;  // runs `model` at the cell's size
  std::vector<backend::BackendSpec> backends;
  std::vector<Variant> variants;        // the model itself first
  std::vector<std::string> opt_levels;  // the target's graph optimization levels
  std::vector<SizePoint> sizes;         // empty: one point, the inputs as the settings give them
  // --size-search: instead of fixed points, each (backend, variant, opt level) cell searches the
  // largest correct size of this input (sweep/cliff.h). Excludes `sizes`.
  std::optional<SizeSearch> size_search;
  probe::InputSettings inputs;  // shared by every cell (seed, --dim, --input, ...)
  isolate::IsolationLimits limits;

  std::size_t cell_count() const;
};

// Cell k of a plan, as axis indices; cells run backend-major, then variant, opt level, size.
struct Cell {
  std::size_t index = 0;
  std::size_t backend = 0, variant = 0, opt_level = 0, size = 0;
};
Cell cell_at(const SweepPlan& plan, std::size_t index);
std::size_t cell_index(const SweepPlan& plan, std::size_t backend, std::size_t variant, std::size_t opt_level,
                       std::size_t size);
// bad_input naming the plan's range when `index` is not one of its cells.
Status check_cell_index(const SweepPlan& plan, std::size_t index);

// What one cell measured.
struct CellResult {
  std::size_t index = 0;
  std::string backend, variant, opt_level, size;  // labels ("" size: the inputs as given)
  std::string ep;                                 // the backend's EP ("cpu", "webgpu", "web-wasm", ...)
  probe::BackendStatus status = probe::BackendStatus::ok;
  std::string failed_rule;   // of the worst output, on mismatch
  std::string worst_output;  // the output with the largest error
  std::optional<double> max_abs, cosine;
  std::optional<Error> error;     // why the cell could not run (status error/crashed/...)
  bool reference_failed = false;  // the error is the reference's: the cell says nothing of the backend
  std::string ort_version, adapter;
  int64_t nodes_on_backend = -1, nodes_on_cpu = -1;
  double create_ms = 0, run_ms = 0, wall_ms = 0;  // the target's session creation and run; whole cell
  uint64_t peak_memory_bytes = 0;                 // the target worker's peak resident memory; 0 = unknown
  // Region extent of the worst output when it is image-like (none, part, all; "" otherwise), and
  // the box of its wrong regions ("rows 5-8, cols 1-8").
  std::string extent, wrong_box;
  std::string finished_at;  // UTC, ISO 8601 ("2026-12-05T19:02:11Z")
  // A size-search cell: every size tried and the boundary found. The fields above then describe
  // the largest correct size (`size` names it), or the first size tried when none was correct.
  std::optional<CliffResult> cliff;
  bool ok() const { return status == probe::BackendStatus::ok; }
};

using ProgressSink = probe::ProgressSink;

// Runs cell `index` of `plan`: the reference on the fp32 model and the cell's backend on its
// variant, both at the cell's size, in isolated workers. A failing backend is a result, not an
// error; errors are for plans that cannot run at all (an unreadable model, a bad size).
// `journal` (size-search cells): a file each probed size is appended to at once, and that a rerun
// replays instead of probing again (empty: none).
Result<CellResult> run_cell(const SweepPlan& plan, std::size_t index, isolate::BackendRunner& runner,
                            const ProgressSink& progress = {}, const std::filesystem::path& journal = {});

struct SweepRun {
  std::filesystem::path out_dir;             // plan.json and results*.jsonl live here
  std::optional<std::size_t> only_cell;      // --cell K: run just this one
  bool resume = false;                       // skip cells some results*.jsonl in out_dir already holds
  isolate::BackendRunner* runner = nullptr;  // shared runner; null = own
};

// Runs the plan's cells (all, or `run.only_cell`), appending each result to out_dir's results
// file the moment it finishes (results.jsonl; results-cell-K.jsonl for one cell, so parallel
// jobs never share a file), and returns every result out_dir now holds, in cell order.
Result<std::vector<CellResult>> run_sweep(const SweepPlan& plan, const SweepRun& run,
                                          const ProgressSink& progress = {});

}  // namespace parity::sweep
