// hunt/hunt.h: `parity hunt`: a differential search for backend miscomputes. Cases are points drawn
// from op spaces (hunt/op_space.h), each a one-node model run on the reference and every target and
// judged by probe's rule. Every failure is reduced (parameters shrunk while it still fails, then each
// parameter's neighbours tried, so the finding states its boundary: "fails for C=129 only; 128, 130
// pass"), clustered (one bug, one finding) and written as a finding folder that `parity verify`,
// `parity findings verify` and `parity lint` read.
//
// Cases are independent cells: case K of a hunt is a pure function of (seed, spaces, K), so a hunt
// can run any subset (--cell), resume from its journal, or be spread over machines and merged.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "hunt/op_space.h"
#include "isolate/backend_runner.h"
#include "isolate/isolated_runner.h"
#include "parity/metrics.h"
#include "parity/result.h"
#include "probe/probe.h"

namespace parity::hunt {

inline constexpr const char* kHuntSchema = "parity.hunt/1";
inline constexpr const char* kHuntCaseSchema = "parity.hunt-case/1";

struct HuntOptions {
  std::vector<std::string> spaces;  // op space names; empty = every space
  backend::BackendSpec reference;   // what the targets are judged against
  std::vector<backend::BackendSpec> targets;
  uint64_t seed = 0;
  int first_case = 0;  // cases first_case .. first_case + cases - 1
  int cases = 100;     // how many to draw
  // Given points instead of drawn ones (--point): case K is points[K], its weights and inputs
  // from (seed, K) as a drawn case's. Excludes `journal`.
  std::vector<std::pair<std::string, Point>> points;
  double budget_s = 0;       // no new case starts after this many seconds (0: no limit)
  int jobs = 1;              // cases running at once
  bool reduce = true;        // reduce and cluster failures into findings
  int max_reduce_runs = 48;  // per failure: shrinking plus neighbours
  isolate::IsolationLimits limits;
  std::string worker_exe;                        // empty = this executable
  isolate::BackendRunner* runner = nullptr;      // null = own
  std::optional<std::filesystem::path> out_dir;  // a finding folder per finding
  // JSON lines of finished cases: read first (those cases are not run again), appended as cases end.
  std::optional<std::filesystem::path> journal;
  std::string command;  // the invocation, for the folders' "found with"
};

// invalid: the case proves nothing (the reference failed, the outputs are empty, the target lacks a
// feature it needs); fallback: the target placed the node on its CPU fallback, so none of its own
// kernels ran.
enum class CaseState { match, mismatch, error, invalid, fallback };
const char* state_name(CaseState s);

// One case on one target.
struct CaseRun {
  std::string target;  // the target's label
  CaseState state = CaseState::match;
  std::string measured;  // "max_abs 2.7, cosine 0.41", or the error's first line
  std::optional<Comparison> metrics;
};

struct HuntCase {
  int index = 0;
  std::string space;
  Point point;
  uint64_t seed = 0;          // weights and inputs
  std::string invalid;        // why the reference (or the model) could not run it; empty when it ran
  std::vector<CaseRun> runs;  // one per target, in options order
};

// One parameter of a finding whose neighbours were tried.
struct Boundary {
  std::string param, meaning;
  int64_t value = 0;
  std::vector<int64_t> failing, passing;  // neighbour values, by outcome
};

struct Finding {
  std::string id;  // "webgpu-conv1d-c129": the folder's name
  std::string space, op_type, target, target_ep;
  CaseState state = CaseState::mismatch;
  Point point;  // the reduced point
  uint64_t seed = 0;
  std::vector<Boundary> boundaries;  // every parameter tried; `essential` ones have passing neighbours
  // Values of essential parameters at which other drawn cases failed and, one step away, passed
  // (the transfer test that put them in this finding); the pattern lines generalise over them.
  std::map<std::string, std::vector<int64_t>> also_failing, also_passing;
  std::vector<std::string> patterns;  // "C odd (9, 15, 129)", "M a multiple of 4 (4, 8, 128)"
  std::string description;            // one line: the op, the backend, the boundary, the patterns
  std::string measured;
  std::vector<int> cases;  // the drawn cases this finding explains (first: the one reduced)
  int reduce_runs = 0;
  std::optional<std::filesystem::path> folder;
};

struct TargetInfo {
  std::string label, ep, runtime_version, adapter;
};

struct HuntReport {
  std::string parity_version;
  uint64_t seed = 0;
  std::vector<std::string> spaces;
  std::string reference;
  std::vector<TargetInfo> targets;
  int first_case = 0, cases_planned = 0;
  int resumed = 0;            // cases read back from the journal
  bool budget_spent = false;  // some planned cases were not started
  bool interrupted = false;   // stopped by a signal: `cases` holds the finished ones; no reduction ran
  double wall_s = 0;
  std::vector<HuntCase> cases;  // by index
  std::vector<Finding> findings;
};

// Case `index` of the hunt with `seed` over `spaces` (names; empty = all): which space, which
// point. Pure: the same arguments give the same case on any machine.
Result<HuntCase> plan_case(const std::vector<std::string>& spaces, uint64_t seed, int index);

// Fails only for a bad invocation (unknown space, no target, duplicate labels, an unreadable
// journal); every backend problem is a case's state.
Result<HuntReport> run_hunt(const HuntOptions& options, const probe::ProgressSink& progress = {});

// "Conv1D:C=129,M=128,K=3" -> the space and the point; every parameter of the space must be
// given (the error lists them), none it lacks, and the values within their ranges.
Result<std::pair<std::string, Point>> parse_point(const std::string& text);

// A case as one JSON line of the journal, and back.
std::string case_to_json_line(const HuntCase& c);
Result<HuntCase> case_from_json_line(const std::string& line);

}  // namespace parity::hunt
