#include "viewers/graph_navigation.h"

#include <algorithm>

namespace kiln::viewers {

std::vector<int> producersOf(const ir::Graph& g, int id) {
  std::vector<int> out;
  const ir::Node* n = g.find(id);
  if (!n) return out;
  ir::forEachNodeArg(*n, [&](int a) {
    if (g.find(a) && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  });
  return out;
}

std::vector<int> consumersOf(const ir::Graph& g, int id) {
  std::vector<int> out;
  for (const auto& user : g.nodes) {
    bool uses = false;
    ir::forEachNodeArg(user, [&](int a) { uses = uses || a == id; });
    if (uses && user.id != id) out.push_back(user.id);
  }
  return out;
}

}  // namespace kiln::viewers
