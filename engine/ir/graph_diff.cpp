#include "engine/ir/graph_diff.h"

#include "engine/ir/text.h"

#include <map>

namespace kiln::ir {

namespace {

// A node as its readable form shows it (arguments by name), without its id or provenance: what
// a reader compares when stepping from one stage to the next. Kernel membership counts, so the
// fused stage shows which nodes joined a kernel; the kernel's name does not (it lists the ops
// fused, so one changed op would rename every node's kernel in another session).
std::string signature(const Graph& g, const Node& n, bool kernelMembership) {
  std::string s = std::to_string(static_cast<int>(n.kind)) + " " + n.target + "(";
  for (const auto& a : n.args) s += printArg(g, a) + ",";
  for (const auto& [k, a] : n.kwargs) s += k + "=" + printArg(g, a) + ",";
  s += ")";
  for (const auto& t : n.types) s += " " + t.str();
  return s + (n.kernel.empty() || !kernelMembership ? "" : " in a kernel");
}

}  // namespace

GraphChanges diffGraphs(const Graph& before, const Graph& after, bool kernelMembership) {
  std::map<std::string, const Node*> old;
  for (const auto& n : before.nodes) old[n.name] = &n;
  GraphChanges c;
  std::map<std::string, bool> seen;
  for (const auto& n : after.nodes) {
    seen[n.name] = true;
    auto it = old.find(n.name);
    if (it == old.end()) c.added.push_back(n.id);
    else if (signature(before, *it->second, kernelMembership) != signature(after, n, kernelMembership)) c.changed.push_back(n.id);
  }
  for (const auto& n : before.nodes)
    if (!seen.count(n.name)) c.removed.push_back(n.name);
  return c;
}

}  // namespace kiln::ir
