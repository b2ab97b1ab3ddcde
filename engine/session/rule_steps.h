// One rule application (session::RuleApplication) as the CLI and the studio's Step tab show it:
// the affected subgraph before (read from the pass's input graph) and its replacement after
// (read from the pass's output graph), as text and as the node ids to mark in a graph view.
// Built from the two stored graphs of the step, so a firing stores ids only.
#pragma once

#include "engine/ir/graph.h"
#include "engine/session/events.h"

#include <string>
#include <vector>

namespace kiln::session {

struct RuleStep {
  // Input graph, in graph order: the direct inputs of the root and the consumed nodes (those
  // outside the match), the consumed nodes, the root.
  std::vector<int> inputs, matched;
  // Output graph, in graph order: the nodes the rewrite added and the replacement (an input
  // when the rule replaced the root by one of its operands).
  std::vector<int> after;
  std::string beforeText, afterText;  // a line per node: `mul: "f32[4]" = aten.mul.Tensor(x, 1)`
};

RuleStep ruleStep(const ir::Graph& before, const ir::Graph& after, const RuleApplication& app);

// One line for `kiln show --rules`: the index (from 1), the rule, where it is defined, the root
// and consumed nodes by name (input graph), the added nodes and the replacement (output graph).
std::string ruleApplicationLine(const ir::Graph& before, const ir::Graph& after, const RuleApplication& app, size_t index);

}  // namespace kiln::session
