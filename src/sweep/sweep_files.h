// sweep/sweep_files.h: the files that make sweep cells independent: the plan ("schema":
// "parity.sweep-plan/1", every axis and backend spec resolved) and the results, one JSON line per
// finished cell in results*.jsonl. Both are versioned and only grow (docs/sweep.md).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "parity/result.h"
#include "sweep/sweep.h"

namespace parity::sweep {

inline constexpr const char* kPlanSchema = "parity.sweep-plan/1";

nlohmann::json plan_to_json(const SweepPlan& plan);
// Errors (bad_input) name the field that is missing or wrong.
Result<SweepPlan> plan_from_json(const nlohmann::json& j, const std::string& origin);

nlohmann::json cell_to_json(const CellResult& r);
Result<CellResult> cell_from_json(const nlohmann::json& j);

Status write_plan(const SweepPlan& plan, const std::filesystem::path& path);
Result<SweepPlan> read_plan(const std::filesystem::path& path);

// Appends one result as a line and syncs it to disk before returning: a cell reported finished
// is on disk, whatever happens next.
Status append_result(const std::filesystem::path& path, const CellResult& r);

// Every result in `dir`'s results*.jsonl files, by cell index. A torn last line (a run killed
// mid-write) is dropped and the file rewritten without it, so later appends start on a line of
// their own; any other unreadable line is an error naming file and line. When one cell appears
// twice (a re-run), the later line wins. Every line must be a cell of `plan` (its index in range,
// its backend, variant, opt level and size those of that cell): a line of another plan or a forged
// one is an error naming file and line, not a result.
Result<std::map<std::size_t, CellResult>> read_results(const std::filesystem::path& dir,
                                                       const SweepPlan& plan);

}  // namespace parity::sweep
