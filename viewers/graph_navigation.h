// Keyboard navigation along edges (issue 17): from the selected node, Up goes to what it reads
// (its producers, in argument order), Down to what reads it (its consumers, in graph order), and
// Left / Right step through the other producers or consumers of that last move, so a reader can
// follow a value through a big graph without the mouse. Works on the graph as shown: a folded
// module box has the edges of its members.
#pragma once

#include "engine/ir/graph.h"

#include <vector>

namespace kiln::viewers {

// The nodes `id` reads, first use first, each once.
std::vector<int> producersOf(const ir::Graph& g, int id);
// The nodes that read `id`, in graph order.
std::vector<int> consumersOf(const ir::Graph& g, int id);

}  // namespace kiln::viewers
