// The one shape every pass has: graph in, PassResult out. Passes never print and never emit
// events; the pass manager verifies, times and snapshots around them.
#pragma once

#include "engine/ir/graph.h"
#include "engine/session/events.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kiln::passes {

struct PassContext {
  bool training = false;  // module mode when known (conv/bn folding only in eval)
  // The fuse pass makes at most this many fusion decisions (joins of a node into an existing
  // kernel); -1: no limit. kiln run --verify bisects over it to find the decision that broke
  // a graph.
  int fusionLimit = -1;
};

struct PassResult {
  ir::Graph graph;
  bool changed = false;
  std::vector<session::RuleHit> rules;
  // Passes written as rule tables (applyRules): every firing with its subgraph, in order, so
  // the studio steps one rule application at a time.
  std::vector<session::RuleApplication> applications = {};

  // Records that `rule` fired on node `id` (of the input graph).
  void fired(const std::string& rule, int id);
};

using PassFn = std::function<PassResult(const ir::Graph&, PassContext&)>;

struct PassInfo {
  std::string name;         // stable name: disable with --disable-pass NAME
  std::string description;  // one line for the studio's stepper
  PassFn run;
  std::string origin = "built-in";  // who registered it: "built-in" or the plugin's file
};

}  // namespace kiln::passes
