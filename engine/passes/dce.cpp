#include "engine/passes/dce.h"

#include <set>

namespace kiln::passes {

PassResult dce(const ir::Graph& g, PassContext&) {
  PassResult r;
  std::set<int> live;
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    if (it->kind == ir::NodeKind::Output || it->kind == ir::NodeKind::Placeholder || live.count(it->id))
      ir::forEachNodeArg(*it, [&](int id) { live.insert(id); });
  }
  r.graph.name = g.name;
  r.graph.reserveIds(g.nextId());
  for (const auto& n : g.nodes) {
    if (n.isCall() && !live.count(n.id)) {
      r.fired("dead " + n.target, n.id);
      continue;
    }
    r.graph.add(n);
  }
  return r;
}

}  // namespace kiln::passes
