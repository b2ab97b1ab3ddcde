#include "engine/passes/backward_graph.h"

#include "engine/autograd/derivative_util.h"
#include "engine/ops/graph_dispatcher.h"

#include <map>
#include <set>
#include <stdexcept>

namespace kiln::passes {

namespace {

using ops::Val;

// Nodes whose value depends on an input that requires grad.
std::set<int> differentiable(const ir::Graph& g) {
  std::set<int> reach;
  for (const auto& n : g.nodes) {
    if (n.kind == ir::NodeKind::Placeholder) {
      if (!n.types.empty() && n.types[0].requiresGrad && ir::isFloating(n.types[0].dtype)) reach.insert(n.id);
      continue;
    }
    if (!n.isCall() || n.types.size() != 1 || !ir::isFloating(n.types[0].dtype) || n.noGrad) continue;
    bool r = false;
    ir::forEachNodeArg(n, [&](int a) { r = r || reach.count(a) > 0; });
    if (r) reach.insert(n.id);
  }
  return reach;
}

}  // namespace

BackwardGraph buildBackwardGraph(const ir::Graph& forward, size_t userOutputs) {
  BackwardGraph bw;
  ir::Graph& out = bw.graph;
  out.name = forward.name + "_backward";
  ops::GraphDispatcher d(out);
  const std::set<int> reach = differentiable(forward);

  // Primals, then the forward replayed (its values are what the formulas read).
  std::map<int, Val> value;
  std::vector<int> inputs;  // forward placeholder ids, in order
  int index = 0;
  for (const auto& n : forward.nodes) {
    if (n.kind != ir::NodeKind::Placeholder) continue;
    ir::Node p;
    p.kind = ir::NodeKind::Placeholder;
    p.name = p.target = "primals_" + std::to_string(++index);
    p.types = n.types;
    p.prov = n.prov;
    p.prov.from = {n.id};
    value[n.id] = Val::sym(n.types.at(0), out.add(std::move(p)).id);
    inputs.push_back(n.id);
  }
  const ir::Node* output = forward.output();
  if (!output) throw std::runtime_error("backward: the forward graph has no output");
  const auto& results = output->args.at(0).list;
  // Tangents come before the recomputed forward so all placeholders lead the graph.
  std::map<int, Val> grad;  // forward node id -> its accumulated gradient
  auto accumulate = [&](int id, const Val& gIn) {
    if (!gIn.isTensor()) return;
    // In the forward node's dtype, as eager autograd's input validation casts it.
    const ir::Node* fn = forward.find(id);
    const Val g = fn && fn->types.size() == 1 ? autograd::dv::toDType(d, gIn, fn->types[0].dtype) : gIn;
    auto it = grad.find(id);
    if (it == grad.end()) grad.emplace(id, g);
    else it->second = d.call("aten.add.Tensor", {it->second, g});
  };
  std::vector<std::pair<int, Val>> seeds;
  for (size_t j = 0; j < results.size() && j < userOutputs; ++j) {
    if (!results[j].isNode() || !reach.count(results[j].node)) continue;
    const ir::Node* r = forward.find(results[j].node);
    ir::Node t;
    t.kind = ir::NodeKind::Placeholder;
    t.name = t.target = "tangents_" + std::to_string(bw.tangentOf.size() + 1);
    ir::TensorType ty = r->types.at(0);
    ty.strides.clear();
    ty.requiresGrad = false;
    t.types = {ty};
    seeds.emplace_back(r->id, Val::sym(ty, out.add(std::move(t)).id));
    bw.tangentOf.push_back(static_cast<int>(j));
  }
  if (seeds.empty()) throw std::runtime_error("backward: no output depends on an input that requires grad");

  auto argVal = [&](const ir::Arg& a, auto&& self) -> Val {
    if (a.isNode()) return value.at(a.node);
    if (a.kind == ir::Arg::Kind::List) {
      std::vector<Val> items;
      for (const auto& x : a.list) items.push_back(self(x, self));
      return Val::listOf(std::move(items));
    }
    return ops::GraphDispatcher::fromArg(forward, a);
  };
  std::vector<const ir::Node*> calls;
  for (const auto& n : forward.nodes) {
    if (!n.isCall()) continue;
    std::vector<Val> args;
    for (const auto& a : n.args) args.push_back(argVal(a, argVal));
    d.provenance = n.prov;
    d.provenance.from = {n.id};
    value[n.id] = d.call(ops::op(n.target), args);
    if (const Val& v = value[n.id]; v.kind == Val::Kind::Sym && v.node >= 0)
      if (const ir::Node* j = out.find(v.node); j && j->isCall()) bw.forwardValue.emplace(n.id, v.node);
    calls.push_back(&n);
  }

  // Reverse mode.
  for (const auto& [id, t] : seeds) accumulate(id, t);
  for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
    const ir::Node& n = **it;
    auto g = grad.find(n.id);
    if (g == grad.end() || !reach.count(n.id)) continue;
    const ops::OpDef& op = ops::op(n.target);
    if (!op.backward) throw std::runtime_error("backward: no derivative formula for " + n.target);
    std::vector<Val> args;
    std::vector<bool> needs;
    for (const auto& a : n.args) {
      args.push_back(argVal(a, argVal));
      bool need = false;
      if (a.isNode()) need = reach.count(a.node) > 0;
      for (const auto& x : a.list) need = need || (x.isNode() && reach.count(x.node));
      needs.push_back(need);
    }
    d.provenance = n.prov;
    d.provenance.from = {n.id};
    ops::GradContext ctx{args, value.at(n.id), g->second, needs};
    std::vector<Val> argGrads = op.backward(d, ctx);
    for (size_t i = 0; i < n.args.size() && i < argGrads.size(); ++i) {
      if (!needs[i]) continue;
      const ir::Arg& a = n.args[i];
      if (a.isNode()) accumulate(a.node, argGrads[i]);
      else if (argGrads[i].kind == Val::Kind::List)
        for (size_t k = 0; k < a.list.size() && k < argGrads[i].list.size(); ++k)
          if (a.list[k].isNode() && reach.count(a.list[k].node)) accumulate(a.list[k].node, argGrads[i].list[k]);
    }
  }

  // Outputs: the gradients of the inputs that require grad and were reached.
  std::vector<ir::Arg> refs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto g = grad.find(inputs[i]);
    if (g == grad.end() || g->second.kind != Val::Kind::Sym) continue;
    refs.push_back(ops::GraphDispatcher::toArg(g->second));
    bw.gradOf.push_back(static_cast<int>(i));
  }
  if (refs.empty()) throw std::runtime_error("backward: no gradient reaches an input");
  ir::Node o;
  o.kind = ir::NodeKind::Output;
  o.name = o.target = "output";
  o.args.push_back(ir::Arg::listOf(std::move(refs)));
  out.add(std::move(o));
  return bw;
}

}  // namespace kiln::passes
