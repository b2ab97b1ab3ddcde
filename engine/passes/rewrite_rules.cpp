#include "engine/passes/rewrite_rules.h"

#include "engine/ops/op_table.h"
#include "engine/passes/rebuilder.h"

#include <map>
#include <set>

namespace kiln::passes {

namespace {

// Whether the graph returns `id`: a look at the output node's arguments, not a scan of every
// node's (once per firing, that made simplify quadratic: 7 s on 15,000 nodes).
bool isOutput(const ir::Graph& g, int id) {
  const ir::Node* out = g.output();
  if (!out) return false;
  bool found = false;
  ir::forEachNodeArg(*out, [&](int a) { found = found || a == id; });
  return found;
}

// Erases the consumed nodes left without users (a chain frees its producers): use counts taken
// once, then a worklist, instead of a scan of the graph per node and round.
void eraseDeadConsumed(ir::Graph& g, const std::vector<int>& consumed) {
  if (consumed.empty()) return;
  std::map<int, int> uses;
  for (const auto& n : g.nodes) ir::forEachNodeArg(n, [&](int a) { ++uses[a]; });
  std::set<int> candidates(consumed.begin(), consumed.end());
  std::vector<int> work(consumed.begin(), consumed.end());
  while (!work.empty()) {
    const int id = work.back();
    work.pop_back();
    const ir::Node* n = g.find(id);
    if (!candidates.count(id) || !n || uses[id] > 0) continue;
    candidates.erase(id);
    std::vector<int> inputs;
    ir::forEachNodeArg(*n, [&](int a) { inputs.push_back(a); });
    g.remove(id);
    for (int a : inputs)
      if (--uses[a] == 0 && candidates.count(a)) work.push_back(a);
  }
}

}  // namespace

const ir::Node* Match::producer(const ir::Arg& a, std::string_view target) const {
  if (a.kind != ir::Arg::Kind::Node) return nullptr;
  const ir::Node* p = graph.find(a.node);
  return p && p->target == target ? p : nullptr;
}

const ir::Node* Match::operand(size_t i, std::string_view target) const {
  return i < node.args.size() ? producer(node.args[i], target) : nullptr;
}

bool Match::isNumber(size_t i, double v) const { return i < node.args.size() && node.args[i].isNumber() && node.args[i].number() == v; }

bool Match::sameType(const ir::Arg& a) const {
  if (a.kind != ir::Arg::Kind::Node) return false;
  const ir::Node* p = graph.find(a.node);
  return p && !p->types.empty() && !node.types.empty() && p->types[0].dtype == node.types[0].dtype &&
         p->types[0].sizes == node.types[0].sizes;
}

bool Match::wouldAliasOutput(const ir::Arg& a) const {
  if (!isOutput(graph, node.id) || a.kind != ir::Arg::Kind::Node) return false;
  const ir::Node* p = graph.find(a.node);
  while (p) {
    if (p->kind == ir::NodeKind::Placeholder || isOutput(graph, p->id)) return true;
    const ops::OpDef* def = p->kind == ir::NodeKind::CallFunction ? ops::findOp(p->target) : nullptr;
    if (!def || def->kind != ops::OpKind::View || p->args.empty() || p->args[0].kind != ir::Arg::Kind::Node) return false;
    p = graph.find(p->args[0].node);
  }
  return false;
}

bool Match::keep(const ir::Arg& a) {
  if (!sameType(a) || wouldAliasOutput(a)) return false;
  x = a;
  return true;
}

ops::Val Match::value(const ir::Arg& a) const { return rebuilder->argValue(a); }

ops::Dispatcher& Match::dispatcher() const { return rebuilder->dispatcher(node); }

std::string ruleLocation(const std::vector<RewriteRule>& rules, size_t index) {
  std::string file = index < rules.size() ? rules[index].defined.file_name() : "";
  // Builds pass absolute paths: keep the part from the repository's top folder, stable across
  // checkouts; a file elsewhere (an out-of-tree plugin) keeps its base name.
  size_t from = std::string::npos;
  for (const char* top : {"/engine/", "/plugins/", "/tests/"})
    if (size_t at = file.rfind(top); at != std::string::npos && (from == std::string::npos || at > from)) from = at;
  if (from != std::string::npos) file = file.substr(from + 1);
  else if (size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
  return file + ", rule " + std::to_string(index + 1) + " of " + std::to_string(rules.size());
}

PassResult applyRules(const ir::Graph& g, const std::vector<RewriteRule>& rules) {
  std::map<std::string_view, std::vector<size_t>> byTarget;  // rule indices, in list order
  for (size_t i = 0; i < rules.size(); ++i)
    for (const auto& t : rules[i].targets) byTarget[t].push_back(i);
  PassResult r;
  Rebuilder rb(g);
  std::vector<int> consumed;
  for (const auto& n : g.nodes) {
    auto candidates = n.kind == ir::NodeKind::CallFunction ? byTarget.find(n.target) : byTarget.end();
    const RewriteRule* fired = nullptr;
    if (candidates != byTarget.end())
      for (size_t index : candidates->second) {
        const RewriteRule* rule = &rules[index];
        Match m{g, n, ir::Arg{}, {}, &rb};
        if (!rule->pattern(m)) continue;
        // The rewrite appends its nodes to the output graph: those past `before` are its own.
        const size_t before = rb.output().nodes.size();
        if (rule->rewrite) rb.replace(n.id, rule->rewrite(m));
        else rb.replaceWithNode(n.id, rb.remap(m.x).node);
        r.fired(rule->name, n.id);
        session::RuleApplication app{rule->name, ruleLocation(rules, index), n.id, m.consumed, {}, -1};
        for (size_t k = before; k < rb.output().nodes.size(); ++k) app.added.push_back(rb.output().nodes[k].id);
        const ir::Arg now = rb.remap(ir::Arg::ref(n.id));
        if (now.kind == ir::Arg::Kind::Node) app.replacement = now.node;
        r.applications.push_back(std::move(app));
        consumed.insert(consumed.end(), m.consumed.begin(), m.consumed.end());
        fired = rule;
        break;
      }
    if (!fired) rb.copy(n);
  }
  r.graph = rb.take();
  eraseDeadConsumed(r.graph, consumed);
  return r;
}

}  // namespace kiln::passes
