#include "viewers/graph_rollup.h"

#include <set>

namespace kiln::viewers {

std::map<int, ModuleRollup> rollUp(const CollapsedGraph& shown, const ir::Graph& graph, const ir::GraphChanges& changes,
                                   const std::vector<ir::Node>& removed, bool asBefore, int line) {
  const std::set<int> added(changes.added.begin(), changes.added.end());
  const std::set<int> changed(changes.changed.begin(), changes.changed.end());
  std::map<int, ModuleRollup> out;
  for (const auto& [box, members] : shown.members) {
    ModuleRollup r;
    for (int id : members) {
      if (added.count(id)) (asBefore ? r.removed : r.added)++;
      else if (changed.count(id)) r.changed++;
      const ir::Node* n = graph.find(id);
      if (line > 0 && n && n->prov.loc.line == line) r.tinted++;
    }
    if (r.tinted) r.tintLine = line;
    // A removed node is no longer in the graph: it counts in the box of its module.
    const std::string& path = shown.moduleOf.at(box);
    for (const auto& n : removed) {
      const std::string& p = n.prov.modulePath;
      if (n.kind != ir::NodeKind::Placeholder && (p == path || p.rfind(path + ".", 0) == 0)) r.removed++;
    }
    if (!r.empty()) out[box] = r;
  }
  return out;
}

}  // namespace kiln::viewers
