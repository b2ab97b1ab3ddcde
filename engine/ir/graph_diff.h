// What a pass (or any step between two graphs) changed: nodes matched by name, which every pass
// keeps for the nodes it does not touch. Used by the studio's stepper to colour the nodes a pass
// added or changed and list the ones it removed.
#pragma once

#include "engine/ir/graph.h"

#include <string>
#include <vector>

namespace kiln::ir {

struct GraphChanges {
  std::vector<int> added;            // ids in `after` of nodes whose name `before` lacks
  std::vector<int> changed;          // ids in `after`: same name, different op, arguments or type
  std::vector<std::string> removed;  // names in `before` that `after` lacks
  bool empty() const { return added.empty() && changed.empty() && removed.empty(); }
};

// `kernelMembership`: a node that joined (or left) a kernel counts as changed. The stepper turns
// it off for the step into the fused stage, where every node joins one and the kernel groups
// already show it: only nodes whose op, arguments or types changed are marked there.
GraphChanges diffGraphs(const Graph& before, const Graph& after, bool kernelMembership = true);

}  // namespace kiln::ir
