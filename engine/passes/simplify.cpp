#include "engine/passes/simplify.h"

#include "engine/passes/rebuilder.h"

#include <cmath>

namespace kiln::passes {

namespace {

bool isConst(const ir::Arg& a, double v) { return a.isNumber() && a.number() == v; }

const ir::Node* producer(const ir::Graph& g, const ir::Arg& a, const char* target) {
  if (a.kind != ir::Arg::Kind::Node) return nullptr;
  const ir::Node* p = g.find(a.node);
  return p && p->target == target ? p : nullptr;
}

// The identity rewrites keep x only if x already has the node's type (no promotion/broadcast).
bool sameType(const ir::Graph& g, const ir::Arg& x, const ir::Node& n) {
  if (x.kind != ir::Arg::Kind::Node) return false;
  const ir::Node* p = g.find(x.node);
  return p && !p->types.empty() && !n.types.empty() && p->types[0].dtype == n.types[0].dtype && p->types[0].sizes == n.types[0].sizes;
}

bool isOutput(const ir::Graph& g, int id) {
  for (int u : g.users(id)) {
    const ir::Node* n = g.find(u);
    if (n && n->kind == ir::NodeKind::Output) return true;
  }
  return false;
}

// Replacing a computed output (x * 1) by x would hand the caller an alias the program never
// made: of an input (mutated by the graph's copy-back, or later by the caller) or of another
// output. Such an identity is kept, as Inductor's no-op removal keeps it.
bool wouldAliasOutput(const ir::Graph& g, const ir::Node& n, const ir::Arg& x) {
  if (!isOutput(g, n.id) || x.kind != ir::Arg::Kind::Node) return false;
  const ir::Node* p = g.find(x.node);
  while (p) {
    if (p->kind == ir::NodeKind::Placeholder || isOutput(g, p->id)) return true;
    const ops::OpDef* def = p->kind == ir::NodeKind::CallFunction ? ops::findOp(p->target) : nullptr;
    if (!def || def->kind != ops::OpKind::View || p->args.empty() || p->args[0].kind != ir::Arg::Kind::Node) return false;
    p = g.find(p->args[0].node);
  }
  return false;
}

}  // namespace

namespace {

// A rewrite consumes its pattern: interior nodes it matched (the log of exp(log x)) are erased
// when nothing else uses them, as a pattern rewriter erases dead matched ops. Other dead code
// is left to dce.
void eraseDeadMatched(ir::Graph& g, std::vector<int> matched) {
  bool erased = true;
  while (erased) {
    erased = false;
    for (auto it = matched.begin(); it != matched.end();) {
      if (g.find(*it) && g.users(*it).empty()) {
        g.remove(*it);
        it = matched.erase(it);
        erased = true;
      } else {
        ++it;
      }
    }
  }
}

}  // namespace

PassResult simplify(const ir::Graph& g, PassContext&) {
  PassResult r;
  Rebuilder rb(g);
  std::vector<int> matched;  // interior nodes of fired patterns
  for (const auto& n : g.nodes) {
    if (n.kind != ir::NodeKind::CallFunction) { rb.copy(n); continue; }
    const std::string& t = n.target;
    if (t == "aten.exp.default") {
      if (const ir::Node* lg = producer(g, n.args.at(0), "aten.log.default")) {
        const ir::Arg& x = lg->args.at(0);
        if (sameType(g, x, n)) {
          auto& d = rb.dispatcher(n);
          ops::Val xv = rb.argValue(x);
          ops::Val neg = d.call("aten.lt.Tensor", {xv, ops::Val::integer(0)});
          rb.replace(n.id, d.call("aten.where.self", {neg, ops::Val::real(NAN), xv}));
          r.fired("exp(log(x)) -> where(x < 0, nan, x)", n.id);
          matched.push_back(lg->id);
          continue;
        }
      }
    }
    if (t == "aten.log.default") {
      if (const ir::Node* ex = producer(g, n.args.at(0), "aten.exp.default"); ex && sameType(g, ex->args.at(0), n) &&
                                                                      !wouldAliasOutput(g, n, ex->args.at(0))) {
        rb.replaceWithNode(n.id, rb.remap(ex->args.at(0)).node);
        r.fired("log(exp(x)) -> x", n.id);
        matched.push_back(ex->id);
        continue;
      }
    }
    if (t == "aten.neg.default") {
      if (const ir::Node* ng = producer(g, n.args.at(0), "aten.neg.default"); ng && sameType(g, ng->args.at(0), n) &&
                                                                      !wouldAliasOutput(g, n, ng->args.at(0))) {
        rb.replaceWithNode(n.id, rb.remap(ng->args.at(0)).node);
        r.fired("neg(neg(x)) -> x", n.id);
        matched.push_back(ng->id);
        continue;
      }
    }
    // Pointless views: a view, reshape or expand to the shape x already has, an identity
    // permute. They cost an extern call each and hide the producer from fusion.
    if (!n.args.empty() && n.kwargs.empty()) {
      const char* rule = nullptr;
      if ((t == "aten.view.default" || t == "aten._unsafe_view.default" || t == "aten.reshape.default" || t == "aten.expand.default") &&
          sameType(g, n.args[0], n))
        rule = t == "aten.expand.default" ? "expand(x, x.shape) -> x" : "view(x, x.shape) -> x";
      if (t == "aten.permute.default" && n.args.size() == 2 && n.args[1].kind == ir::Arg::Kind::List && sameType(g, n.args[0], n)) {
        bool identity = true;
        for (size_t i = 0; i < n.args[1].list.size(); ++i)
          identity = identity && n.args[1].list[i].isNumber() && n.args[1].list[i].number() == static_cast<double>(i);
        if (identity) rule = "permute(x, identity) -> x";
      }
      if (rule) {
        rb.replaceWithNode(n.id, rb.remap(n.args[0]).node);
        r.fired(rule, n.id);
        continue;
      }
    }
    if (n.args.size() == 2 && n.kwargs.empty()) {
      const ir::Arg &a = n.args[0], &b = n.args[1];
      const ir::Arg* keep = nullptr;
      const char* rule = nullptr;
      if (t == "aten.mul.Tensor" && isConst(b, 1) && sameType(g, a, n)) { keep = &a; rule = "x * 1 -> x"; }
      else if (t == "aten.mul.Tensor" && isConst(a, 1) && sameType(g, b, n)) { keep = &b; rule = "1 * x -> x"; }
      else if (t == "aten.add.Tensor" && isConst(b, 0) && sameType(g, a, n)) { keep = &a; rule = "x + 0 -> x"; }
      else if (t == "aten.add.Tensor" && isConst(a, 0) && sameType(g, b, n)) { keep = &b; rule = "0 + x -> x"; }
      else if (t == "aten.sub.Tensor" && isConst(b, 0) && sameType(g, a, n)) { keep = &a; rule = "x - 0 -> x"; }
      else if (t == "aten.div.Tensor" && isConst(b, 1) && sameType(g, a, n)) { keep = &a; rule = "x / 1 -> x"; }
      if (keep && !wouldAliasOutput(g, n, *keep)) {
        rb.replaceWithNode(n.id, rb.remap(*keep).node);
        r.fired(rule, n.id);
        continue;
      }
    }
    rb.copy(n);
  }
  r.graph = rb.take();
  eraseDeadMatched(r.graph, matched);
  return r;
}

}  // namespace kiln::passes
