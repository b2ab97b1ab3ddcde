#include "viewers/module_collapse.h"

#include <algorithm>
#include <functional>

namespace kiln::viewers {

namespace {

// "" when the node shows as itself, else the module box it folds into.
std::string foldedInto(const std::string& path, const std::set<std::string>& expanded) {
  size_t at = 0;
  while (!path.empty()) {
    size_t dot = path.find('.', at);
    std::string prefix = path.substr(0, dot);
    if (!expanded.count(prefix)) return prefix;
    if (dot == std::string::npos) return "";
    at = dot + 1;
  }
  return "";
}

}  // namespace

std::set<std::string> modulePaths(const ir::Graph& g) {
  std::set<std::string> out;
  for (const auto& n : g.nodes) {
    const std::string& p = n.prov.modulePath;
    for (size_t dot = p.find('.'); dot != std::string::npos; dot = p.find('.', dot + 1)) out.insert(p.substr(0, dot));
    if (!p.empty()) out.insert(p);
  }
  return out;
}

CollapsedGraph collapseByModule(const ir::Graph& g, const std::set<std::string>& expanded) {
  CollapsedGraph c;
  std::map<std::string, int> boxOf;  // module path -> box id
  std::map<int, int> viewOf;         // original id -> id shown (itself or its box)
  int nextBox = g.nextId();
  // Graph inputs have no module of their own; a parameter belongs where it is first used (a
  // 48-block model has ~600 of them, which would otherwise stay unfolded side by side).
  std::map<int, std::string> inputScope;
  for (const auto& n : g.nodes)
    ir::forEachNodeArg(n, [&](int a) {
      const ir::Node* p = g.find(a);
      if (p && p->kind == ir::NodeKind::Placeholder && !inputScope.count(a)) inputScope[a] = n.prov.modulePath;
    });
  for (const auto& n : g.nodes) {
    const std::string scope = n.kind == ir::NodeKind::Placeholder ? inputScope[n.id] : n.prov.modulePath;
    const std::string box = n.kind == ir::NodeKind::Output ? "" : foldedInto(scope, expanded);
    if (box.empty()) {
      viewOf[n.id] = n.id;
      continue;
    }
    auto [it, fresh] = boxOf.emplace(box, nextBox);
    if (fresh) c.moduleOf[nextBox++] = box;
    viewOf[n.id] = it->second;
    c.memberCount[it->second]++;
    c.members[it->second].push_back(n.id);
  }
  // Nodes in graph order, each box where its first member was; arguments that point into a box
  // point at the box, and a box takes its members' producers outside it, once each.
  std::map<int, size_t> boxAt;  // box id -> position in c.graph.nodes
  std::function<void(ir::Arg&)> remap = [&](ir::Arg& a) {
    if (a.kind == ir::Arg::Kind::Node) a.node = viewOf.at(a.node);
    for (auto& x : a.list) remap(x);
  };
  for (const auto& n : g.nodes) {
    const int v = viewOf.at(n.id);
    if (v == n.id) {
      ir::Node copy = n;
      for (auto& a : copy.args) remap(a);
      for (auto& [k, a] : copy.kwargs) remap(a);
      c.graph.nodes.push_back(std::move(copy));  // names and ids are already unique
      continue;
    }
    if (!boxAt.count(v)) {
      ir::Node box;
      box.id = v;
      box.kind = ir::NodeKind::CallFunction;  // drawn as a box whose target says what it folds
      box.name = box.prov.modulePath = c.moduleOf.at(v);
      box.target = "module, " + std::to_string(c.memberCount.at(v)) + " nodes";
      boxAt[v] = c.graph.nodes.size();
      c.graph.nodes.push_back(std::move(box));
    }
    ir::Node& box = c.graph.nodes[boxAt.at(v)];
    ir::forEachNodeArg(n, [&](int a) {
      const int src = viewOf.at(a);
      const bool known = std::any_of(box.args.begin(), box.args.end(), [&](const ir::Arg& x) { return x.node == src; });
      if (src != v && !known) box.args.push_back(ir::Arg::ref(src));
    });
  }
  c.graph.reserveIds(nextBox);
  return c;
}

}  // namespace kiln::viewers
