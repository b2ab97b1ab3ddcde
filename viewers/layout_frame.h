// Stable node positions while stepping: the stages of one compile (ATen, each pass, fused) share
// node ids -- a pass keeps the ids of the nodes it copies and gives new nodes fresh ones -- so the
// view lays out their union once (the "frame") and draws every stage as the subset of it that
// the stage has. A node that survives a pass stays exactly where it was, a removed one leaves
// a gap, an added one appears in the place kept for it; stepping needs no new layout at all.
#pragma once

#include "engine/ir/graph.h"
#include "viewers/graph_layout.h"
#include "viewers/module_collapse.h"

#include <optional>
#include <vector>

namespace kiln::viewers {

// The union of `stages` (in pipeline order): every node id any of them has, in an order that
// keeps each stage's order, with its latest label; a node's arguments are its latest ones plus
// (as an extra list argument) the producers it had in earlier stages, so the union's layout has
// a route for every edge of every stage.
ir::Graph unionOfStages(const std::vector<ir::Graph>& stages);
// The same over graphs held elsewhere (the studio's read shares them with the stage's read).
ir::Graph unionOfStages(const std::vector<const ir::Graph*>& stages);

// True when every node of `stage` is in `frame` (by id).
bool fitsFrame(const ir::Graph& stage, const ir::Graph& frame);

// Draws `stage` (folded as `stageShown`) with the positions of `frameLayout`, the layout of the
// frame folded the same way (`frameShown`). Module boxes are matched by module path, nodes by
// id. Nothing when a node of the stage has no place in the frame (the caller lays it out anew).
std::optional<GraphLayout> projectLayout(const GraphLayout& frameLayout, const CollapsedGraph& frameShown, const CollapsedGraph& stageShown,
                                         const LabelMetrics& metrics);

}  // namespace kiln::viewers
