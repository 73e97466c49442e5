// lint/rules.h: the table of static lint rules. Each rule is data (id, severity, the backends it
// concerns, why it matters, the fix, the finding folder holding its evidence) plus one small
// matcher over a model's graph facts. Rules that need a real session (placement, what survives
// constant folding, the runtime's own refusals) are checked in lint.cpp and listed in live_rules().
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/graph_facts.h"

namespace parity::lint {

enum class Severity { info, warning, error };
std::string_view to_string(Severity s);

// One place a rule matched: the nodes involved and a line with the particulars.
struct Match {
  std::vector<std::string> nodes;
  std::string detail;  // "block_size 4 over 8 elements (axis 0)"
};

struct Rule {
  std::string_view id;
  Severity severity;  // on a backend the evidence says is affected
  std::string_view title;
  // EP paths the rule concerns ("webgpu", "web-jsep", ...); empty = every backend.
  std::vector<std::string_view> backends;
  std::string_view why;
  std::string_view fix;
  std::string_view finding;  // folder under docs/findings/ with the repro; empty = none
  std::vector<Match> (*match)(const model::GraphFacts& facts);  // null for live rules
};

// Every rule, static and live, in report order.
const std::vector<Rule>& rules();
const Rule* find_rule(std::string_view id);

}  // namespace parity::lint
