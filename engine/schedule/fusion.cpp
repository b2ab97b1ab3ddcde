#include "engine/schedule/fusion.h"

#include "engine/ops/op_table.h"

#include <algorithm>
#include <map>
#include <set>

namespace kiln::schedule {

namespace {

// A reduction code generation can emit (a kernel of its own; pointwise ops do not join it).
bool isGeneratedReduction(const ir::Graph& g, const ir::Node& n) {
  if (n.kind != ir::NodeKind::CallFunction) return false;
  const ops::OpDef* op = ops::findOp(n.target);
  if (!op || !op->reduction || n.args.empty() || !n.args[0].isNode() || n.types.size() != 1) return false;
  const ir::Node* in = g.find(n.args[0].node);
  if (!in || in->types.size() != 1) return false;
  for (const auto* t : {&in->types[0], &n.types[0]}) {
    if (t->dtype == ir::DType::Float16 || t->dtype == ir::DType::BFloat16) return false;
    for (const auto& d : t->sizes)
      if (d.symbolic() || d.value == 0) return false;
  }
  return true;
}

bool isPointwise(const ir::Node& n) {
  if (n.kind != ir::NodeKind::CallFunction) return false;
  const ops::OpDef* op = ops::findOp(n.target);
  return op && op->kind == ops::OpKind::Pointwise && op->pointwise;
}

std::string shapeKey(const ir::Node& n) { return n.types.empty() ? "" : n.types[0].str().substr(n.types[0].str().find('[')); }

}  // namespace

passes::PassResult fuse(const ir::Graph& g, passes::PassContext&) {
  passes::PassResult r;
  r.graph = g;
  std::map<int, int> group;            // node id -> group number
  std::map<int, std::vector<int>> members;
  int next = 0;
  // deps[n] = groups node n depends on (transitively), to reject fusions that would cycle.
  std::map<int, std::set<int>> deps;
  std::set<int> reductionGroups;
  for (const auto& n : g.nodes) {
    std::set<int>& d = deps[n.id];
    ir::forEachNodeArg(n, [&](int a) {
      d.insert(deps[a].begin(), deps[a].end());
      if (group.count(a)) d.insert(group[a]);
    });
    if (isGeneratedReduction(g, n)) {
      int gid = next++;
      group[n.id] = gid;
      members[gid].push_back(n.id);
      reductionGroups.insert(gid);
      r.fired("reduction kernel", n.id);
      continue;
    }
    if (!isPointwise(n)) continue;
    int chosen = -1;
    std::string why;
    ir::forEachNodeArg(n, [&](int a) {
      if (chosen >= 0 || !group.count(a)) return;
      int gid = group[a];
      if (reductionGroups.count(gid)) { why = "not fused: " + n.name + " consumes a reduction"; return; }
      const ir::Node* p = g.find(a);
      if (shapeKey(*p) != shapeKey(n)) { why = "not fused: " + n.name + " and " + p->name + " iterate over different shapes"; return; }
      // Any other input that reaches group gid through a non-member would create a cycle.
      bool cycle = false;
      ir::forEachNodeArg(n, [&](int b) {
        if (b == a || (group.count(b) && group[b] == gid)) return;
        if (deps[b].count(gid)) cycle = true;
      });
      if (cycle) { why = "not fused: " + n.name + " would make kernel wait on itself"; return; }
      chosen = gid;
    });
    if (!why.empty() && chosen < 0) r.fired(why, n.id);
    if (chosen < 0) {
      chosen = next++;
    } else {
      r.fired("fused: pointwise into producer's kernel", n.id);
    }
    group[n.id] = chosen;
    members[chosen].push_back(n.id);
    d.erase(chosen);
  }
  // Name kernels after their ops, as Inductor does.
  int index = 0;
  std::map<int, std::string> names;
  for (const auto& n : g.nodes) {
    if (!group.count(n.id) || names.count(group[n.id])) continue;
    int gid = group[n.id];
    std::set<std::string> opNames;
    for (int m : members[gid]) {
      std::string t = g.find(m)->target;
      size_t a = t.find('.'), b = t.find('.', a + 1);
      opNames.insert(t.substr(a + 1, b - a - 1));
    }
    std::string name = "cpp_fused";
    for (const auto& o : opNames) name += "_" + o;
    names[gid] = name + "_" + std::to_string(index++);
  }
  for (auto& n : r.graph.nodes)
    if (group.count(n.id)) n.kernel = names[group[n.id]];
  r.changed = !names.empty();
  return r;
}

}  // namespace kiln::schedule
