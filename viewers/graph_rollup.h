// Roll-ups: what a folded module box holds of a step's marks. A box of 120 nodes whose module
// the pass rewrote shows "3 added, 5 changed" and the strongest of their colours, and the
// source-line tint when some of its nodes come from the line shown, so folding does not hide
// the signal.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ir/graph_diff.h"
#include "viewers/module_collapse.h"

#include <map>
#include <vector>

namespace kiln::viewers {

struct ModuleRollup {
  int added = 0, changed = 0, removed = 0;
  int tinted = 0, tintLine = 0;  // nodes from source line `tintLine` (the one highlighted)
  bool operator==(const ModuleRollup&) const = default;
  bool empty() const { return !added && !changed && !removed && !tinted; }
};

// Per box of `shown` (its id), the roll-up of `graph`'s nodes folded into it. `removed`: the
// nodes the step removed (from the graph before it), counted in the box of their module.
// `asBefore`: `graph` is the older side of a comparison, so `changes.added` are nodes the newer
// graph lost (counted as removed). `line` > 0 counts the nodes from that source line.
std::map<int, ModuleRollup> rollUp(const CollapsedGraph& shown, const ir::Graph& graph, const ir::GraphChanges& changes,
                                   const std::vector<ir::Node>& removed, bool asBefore, int line);

}  // namespace kiln::viewers
