// report/sweep_report.h: `parity sweep` rendered: the matrix as a table with each backend's
// verdict under it, as a report document, and as JSON ("schema": "parity.sweep/1", append-only,
// docs/sweep.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/document.h"
#include "sweep/ladder.h"
#include "sweep/sweep.h"

namespace parity::report {

inline constexpr const char* kSweepSchema = "parity.sweep/1";

std::string sweep_table(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results);
nlohmann::json sweep_to_json(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results);
// `--html/--markdown`: the matrix as a grid (rows backend x opt level, columns variant x size) of
// colour-coded verdicts with their numbers; per size-search cell the cliff curve (max_abs against
// pixel count, each size coloured by its outcome) with the partly-wrong band and the safe budget
// marked, and the sizes tried; then each backend's smallest correct variant.
Document sweep_document(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results);

// `--list`: one line per cell of the plan, with its index.
std::string sweep_cell_list(const sweep::SweepPlan& plan);

}  // namespace parity::report
