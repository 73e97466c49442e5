// report/bisect_document.h: `parity bisect --html/--markdown FILE`: the path to the bug as a report:
// the error of every compared tensor in topological order on a log scale beside the bound it was
// judged by, the first divergent node marked, the culprit's neighbourhood (its inputs with their
// verdicts, attributes, and the shapes and types of its weights), the isolation and the repro.
#pragma once

#include "bisect/bisect.h"
#include "model/graph_facts.h"
#include "report/document.h"

namespace parity::report {

// `facts` (read from report.model) gives the culprit's attributes and weights; null leaves them out.
Document bisect_document(const bisect::BisectReport& report, const model::GraphFacts* facts);

}  // namespace parity::report
