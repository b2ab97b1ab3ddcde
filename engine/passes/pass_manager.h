// The pass manager: runs the pipeline over a graph, verifying after every pass, timing it and
// handing a snapshot to the caller. Passes can be disabled by name and the pipeline stopped
// after pass N (bisection).
#pragma once

#include "engine/passes/pass.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace kiln::passes {

struct PassManagerOptions {
  std::set<std::string> disabled;
  int stopAfter = -1;    // run passes [0, stopAfter]; -1 = all
  int fusionLimit = -1;  // PassContext::fusionLimit for the fuse pass
};

struct PassSnapshot {
  std::string name;
  int index = 0;
  // Valid during the callback, which may borrow it (move it out and back: the driver lends it
  // to the stage event rather than copying it) but must leave it as it was.
  ir::Graph* graph = nullptr;
  bool changed = false;
  bool skipped = false;  // disabled or past stopAfter
  std::vector<session::RuleHit> rules;
  std::vector<session::RuleApplication> applications = {};  // PassResult::applications
  double ms = 0.0;
};

// Throws std::logic_error naming the pass when a pass produces an invalid graph, and
// std::invalid_argument (listing the valid names) when `opts.disabled` names no pass.
ir::Graph runPipeline(const ir::Graph& input, PassContext& ctx, const PassManagerOptions& opts,
                      const std::function<void(const PassSnapshot&)>& onPass);
// The same, taking the input graph instead of a copy (a caller done with it).
ir::Graph runPipeline(ir::Graph&& input, PassContext& ctx, const PassManagerOptions& opts,
                      const std::function<void(const PassSnapshot&)>& onPass);

}  // namespace kiln::passes
