#include "engine/passes/cse.h"

#include "engine/ir/text.h"
#include "engine/passes/rebuilder.h"

#include <map>

namespace kiln::passes {

PassResult cse(const ir::Graph& g, PassContext&) {
  PassResult r;
  Rebuilder rb(g);
  std::map<std::string, int> seen;  // key -> new node id
  for (const auto& n : g.nodes) {
    if (!n.isCall()) {
      rb.copy(n);
      continue;
    }
    ir::Node probe = n;
    for (auto& a : probe.args) a = rb.remap(a);
    for (auto& [k, a] : probe.kwargs) a = rb.remap(a);
    // The key spells the op and its (remapped) arguments by id.
    std::string key = std::to_string(static_cast<int>(n.kind)) + "|" + n.target;
    std::function<void(const ir::Arg&)> add = [&](const ir::Arg& a) {
      if (a.kind == ir::Arg::Kind::Node) {
        key += "|%" + std::to_string(a.node);
        return;
      }
      if (a.kind == ir::Arg::Kind::List) {
        key += "|[";
        for (auto& x : a.list) add(x);
        key += "]";
        return;
      }
      if (a.kind == ir::Arg::Kind::Float) {
        key += "|f" + ir::pyFloat(a.f);
        return;
      }
      key += "|" + std::to_string(static_cast<int>(a.kind)) + ":" + std::to_string(a.i) + ":" + std::to_string(a.b) + ":" + a.s + ":" +
             std::to_string(static_cast<int>(a.dtype));
    };
    for (const auto& a : probe.args) add(a);
    for (const auto& [k, a] : probe.kwargs) {
      key += "|" + k + "=";
      add(a);
    }
    auto it = seen.find(key);
    if (it != seen.end()) {
      rb.replaceWithNode(n.id, it->second);
      r.fired("cse: duplicate " + n.target, n.id);
      continue;
    }
    seen[key] = rb.copy(n);
  }
  r.graph = rb.take();
  return r;
}

}  // namespace kiln::passes
