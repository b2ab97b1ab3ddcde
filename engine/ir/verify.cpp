#include "engine/ir/verify.h"

#include <set>

namespace kiln::ir {

std::string verify(const Graph& g) {
  std::set<int> defined;
  std::set<std::string> names;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (defined.count(n.id)) return "duplicate node id " + std::to_string(n.id);
    if (!names.insert(n.name).second) return "duplicate node name '" + n.name + "'";
    std::string bad;
    forEachNodeArg(n, [&](int a) {
      if (!defined.count(a) && bad.empty()) bad = "node '" + n.name + "' uses %" + std::to_string(a) + " before it is defined";
    });
    if (!bad.empty()) return bad;
    if (n.kind == NodeKind::Output && i + 1 != g.nodes.size()) return "output node is not last";
    if (n.isCall() && n.types.empty()) return "node '" + n.name + "' has no result type";
    if (n.kind == NodeKind::Placeholder && i > 0 && g.nodes[i - 1].kind != NodeKind::Placeholder)
      return "input '" + n.name + "' follows a computation";
    defined.insert(n.id);
  }
  if (g.nodes.empty() || g.nodes.back().kind != NodeKind::Output) return "graph has no output node";
  return "";
}

}  // namespace kiln::ir
