#include "engine/passes/cse.h"

#include "engine/ir/text.h"
#include "engine/passes/rebuilder.h"

#include <map>
#include <set>

namespace kiln::passes {

PassResult cse(const ir::Graph& g, PassContext&) {
  PassResult r;
  Rebuilder rb(g);
  std::map<std::string, int> seen;  // key -> new node id
  // Two outputs the program holds as different tensors stay two (an optimizer's per-parameter
  // `step` made as zeros + 1 each): merged, the graph would return one buffer twice and the
  // program's tensors would alias, each later in-place update applied to both.
  std::set<int> outputs, returned;  // old ids the output returns; new ids an output was merged into
  if (const ir::Node* out = g.output()) ir::forEachNodeArg(*out, [&](int a) { outputs.insert(a); });
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
    if (it != seen.end() && outputs.count(n.id) && !returned.insert(it->second).second) {
      rb.copy(n);  // a second output of the same value: a tensor of its own
      continue;
    }
    if (it != seen.end()) {
      rb.replaceWithNode(n.id, it->second);
      r.fired("cse: duplicate " + n.target, n.id);
      continue;
    }
    seen[key] = rb.copy(n);
    if (outputs.count(n.id)) returned.insert(seen[key]);
  }
  r.graph = rb.take();
  return r;
}

}  // namespace kiln::passes
