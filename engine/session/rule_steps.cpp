#include "engine/session/rule_steps.h"

#include "engine/ir/text.h"

#include <algorithm>
#include <set>

namespace kiln::session {

namespace {

std::string nameOf(const ir::Graph& g, int id) {
  const ir::Node* n = g.find(id);
  return n ? n->name : "%" + std::to_string(id);  // not in that graph (an older store's ids)
}

std::string names(const ir::Graph& g, const std::vector<int>& ids) {
  if (ids.empty()) return "-";
  std::string s;
  for (int id : ids) s += (s.empty() ? "" : ",") + nameOf(g, id);
  return s;
}

std::string nodeLine(const ir::Graph& g, const ir::Node& n) {
  std::string line = n.name;
  if (!n.types.empty()) line += ": \"" + n.types[0].str() + "\"";
  if (n.kind == ir::NodeKind::Placeholder) return line + "  (input)";
  line += " = " + n.target + "(";
  for (size_t i = 0; i < n.args.size(); ++i) line += (i ? ", " : "") + ir::printArg(g, n.args[i]);
  for (size_t i = 0; i < n.kwargs.size(); ++i)
    line += (i || !n.args.empty() ? ", " : "") + n.kwargs[i].first + "=" + ir::printArg(g, n.kwargs[i].second);
  return line + ")";
}

// Keeps the ids of `ids` present in `g`, once each, in graph order.
void inGraphOrder(const ir::Graph& g, std::vector<int>& ids) {
  std::erase_if(ids, [&](int id) { return !g.find(id); });
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return g.indexOf(a) < g.indexOf(b); });
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

// The nodes of `ids`, a line each.
std::string linesOf(const ir::Graph& g, const std::vector<int>& ids) {
  std::string text;
  for (int id : ids) text += nodeLine(g, *g.find(id)) + "\n";
  return text;
}

void nodeArgs(const ir::Arg& a, std::vector<int>& out) {
  if (a.kind == ir::Arg::Kind::Node) out.push_back(a.node);
  if (a.kind == ir::Arg::Kind::List)
    for (const auto& x : a.list) nodeArgs(x, out);
}

}  // namespace

RuleStep ruleStep(const ir::Graph& before, const ir::Graph& after, const RuleApplication& app) {
  RuleStep s;
  s.matched = app.consumed;
  s.matched.push_back(app.root);
  const std::set<int> inMatch(s.matched.begin(), s.matched.end());
  for (int id : s.matched)
    if (const ir::Node* n = before.find(id)) {
      std::vector<int> operands;
      for (const auto& a : n->args) nodeArgs(a, operands);
      for (const auto& [key, a] : n->kwargs) nodeArgs(a, operands);
      for (int o : operands)
        if (!inMatch.count(o)) s.inputs.push_back(o);
    }
  inGraphOrder(before, s.inputs);
  inGraphOrder(before, s.matched);
  std::vector<int> all = s.inputs;
  all.insert(all.end(), s.matched.begin(), s.matched.end());
  inGraphOrder(before, all);
  s.beforeText = linesOf(before, all);
  s.after = app.added;
  if (app.replacement >= 0) s.after.push_back(app.replacement);
  inGraphOrder(after, s.after);
  s.afterText = linesOf(after, s.after);
  if (s.afterText.empty()) s.afterText = "(nothing: the replacement is not in the stage's graph)\n";
  return s;
}

std::string ruleApplicationLine(const ir::Graph& before, const ir::Graph& after, const RuleApplication& app, size_t index) {
  return std::to_string(index) + "  " + app.rule + "  [" + app.where + "]  root " + nameOf(before, app.root) + "  consumed " +
         names(before, app.consumed) + "  added " + names(after, app.added) + "  now " +
         (app.replacement >= 0 ? nameOf(after, app.replacement) : std::string("-"));
}

}  // namespace kiln::session
