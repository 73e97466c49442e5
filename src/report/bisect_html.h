// report/bisect_html.h: `parity bisect --html FILE`: the path to the bug as one page: the error of
// every compared tensor in topological order on a log scale beside the bound it was judged by,
// the first divergent node marked, the culprit's neighbourhood (its inputs with their verdicts,
// attributes, and the shapes and types of its weights), the isolation and the repro.
#pragma once

#include <string>

#include "bisect/bisect.h"
#include "model/graph_facts.h"

namespace parity::report {

// `facts` (read from report.model) gives the culprit's attributes and weights; null leaves them out.
std::string bisect_html(const bisect::BisectReport& report, const model::GraphFacts* facts);

}  // namespace parity::report
