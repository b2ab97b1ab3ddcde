// Collapse by module scope: a large graph is shown with each nn.Module folded into one box
// (nodes carry their module path, "transformer_blocks.0.attention", from capture), and only the
// modules the user expands are laid out in full. A node is shown as itself when every prefix of
// its module path is expanded; otherwise it folds into the box of its shortest unexpanded
// prefix. Boxes keep the edges of their members (deduplicated), so the folded graph reads like
// the model's structure.
#pragma once

#include "engine/ir/graph.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::viewers {

struct CollapsedGraph {
  ir::Graph graph;                          // what to lay out: visible nodes plus one node per box
  std::map<int, std::string> moduleOf;      // box node id -> module path
  std::map<int, int> memberCount;           // box node id -> nodes folded into it
  std::map<int, std::vector<int>> members;  // box node id -> the ids folded into it (roll-ups)
};

// Every module path in `g` and all their prefixes ("a.b.c" -> a, a.b, a.b.c).
std::set<std::string> modulePaths(const ir::Graph& g);
CollapsedGraph collapseByModule(const ir::Graph& g, const std::set<std::string>& expanded);

}  // namespace kiln::viewers
