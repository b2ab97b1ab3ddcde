// A layered layout of our own for graphs too big for Graphviz's dot: thousands of nodes with
// long edges (every parameter of a model feeds a node hundreds of ranks down) keep dot's crossing
// minimisation busy for minutes. This one is linear-ish: longest-path layers (every node pulled down
// to just above their first user), a few barycenter sweeps to order each layer, left-to-right
// packing centred per layer, straight edges. Less tidy than dot, but it opens in seconds.
#pragma once

#include "viewers/graph_layout.h"

namespace kiln::viewers {

// `nodes` are the graph's boxes (layoutNodeFor), in graph order; the result places them.
// Kernel groups are not drawn as clusters in this layout.
GraphLayout layeredLayout(const ir::Graph& graph, QList<LayoutNode> nodes);

}  // namespace kiln::viewers
