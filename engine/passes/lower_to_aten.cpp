#include "engine/passes/lower_to_aten.h"

#include "engine/ops/graph_dispatcher.h"
#include "engine/torch/torch_functions.h"

#include <map>
#include <stdexcept>

namespace kiln::passes {

ir::Graph lowerToAten(const ir::Graph& captured, std::map<int, int>* resultOf, std::vector<std::pair<int, int>>* inputMutations) {
  ir::Graph out;
  out.name = captured.name;
  ops::GraphDispatcher d(out);
  std::map<int, ops::Val> env;  // captured node id -> its ATen value
  int argIndex = 0;
  std::map<int, int> inputOf;          // ATen placeholder id -> input index
  std::vector<std::pair<int, int>> mutated;  // (input index, node with its final value)
  size_t seen = 0;                     // mutations of d already applied
  auto mapArg = [&](const ir::Arg& a, auto&& self) -> ops::Val {
    if (a.kind == ir::Arg::Kind::Node) {
      auto it = env.find(a.node);
      if (it == env.end()) throw std::logic_error("lowering: use of an undefined value");
      return it->second;
    }
    if (a.kind == ir::Arg::Kind::List) {
      std::vector<ops::Val> items;
      for (const auto& x : a.list) items.push_back(self(x, self));
      return ops::Val::listOf(std::move(items));
    }
    return ops::GraphDispatcher::fromArg(captured, a);
  };
  for (const auto& n : captured.nodes) {
    if (n.kind == ir::NodeKind::Placeholder) {
      ir::Node p;
      p.kind = ir::NodeKind::Placeholder;
      p.name = p.target = "arg" + std::to_string(argIndex++) + "_1";
      p.types = n.types;
      p.prov.from = {n.id};
      int id = out.add(std::move(p)).id;
      inputOf[id] = argIndex - 1;
      env[n.id] = ops::Val::sym(n.types.at(0), id);
      continue;
    }
    if (n.kind == ir::NodeKind::Output) {
      ir::Node o;
      o.kind = ir::NodeKind::Output;
      o.name = o.target = "output";
      std::vector<ir::Arg> refs;
      for (const auto& a : n.args.at(0).list) refs.push_back(ops::GraphDispatcher::toArg(mapArg(a, mapArg)));
      for (const auto& [input, node] : mutated) {
        if (inputMutations) inputMutations->emplace_back(input, static_cast<int>(refs.size()));
        refs.push_back(ir::Arg::ref(node));
      }
      o.args.push_back(ir::Arg::listOf(std::move(refs)));
      out.add(std::move(o));
      continue;
    }
    // getitem of a multi-result call picks the element (it is not an indexing op).
    if (n.target == "_operator.getitem" && n.args.size() == 2 && n.args[0].isNode() && n.args[1].kind == ir::Arg::Kind::Int) {
      auto src = env.find(n.args[0].node);
      if (src != env.end() && src->second.kind == ops::Val::Kind::List) {
        env[n.id] = src->second.list.at(static_cast<size_t>(n.args[1].i));
        continue;
      }
    }
    const torchapi::TorchFn* fn = torchapi::findTorchFn(n.target, n.kind);
    if (!fn) throw std::runtime_error("lowering: no ATen lowering for captured op '" + n.target + "'");
    torchapi::TArgs ta;
    for (const auto& a : n.args) ta.args.push_back(mapArg(a, mapArg));
    for (const auto& [k, a] : n.kwargs) ta.kwargs.emplace_back(k, mapArg(a, mapArg));
    d.provenance = n.prov;
    d.provenance.from = {n.id};
    ops::Val r = fn->impl(d, ta);
    if (r.kind != ops::Val::Kind::Sym && r.kind != ops::Val::Kind::List)
      throw std::runtime_error("lowering: '" + n.target + "' did not produce a tensor");
    env[n.id] = r;
    // An input updated inside an op's decomposition: later uses read the new value, and the
    // graph returns its final value.
    for (; seen < d.mutations.size(); ++seen) {
      auto [target, value] = d.mutations[seen];
      const ir::Node* v = out.find(value);
      for (auto& [cid, val] : env)
        if (val.kind == ops::Val::Kind::Sym && val.node == target) val = ops::Val::sym(v->types.at(0), value);
      int root = target;
      for (const auto& [input, node] : mutated)
        if (node == target) root = -1 - input;  // a second update of an input
      if (root < 0) {
        for (auto& m : mutated)
          if (m.second == target) m.second = value;
      } else if (auto in = inputOf.find(target); in != inputOf.end()) {
        mutated.emplace_back(in->second, value);
      } else {
        throw std::runtime_error("lowering: '" + n.target + "' updates a value in place that is not a graph input");
      }
    }
    // Functionalization: after x.add_(1), every later use of x is the new value.
    if (n.kind == ir::NodeKind::CallMethod && torchapi::isInplaceMethod(n.target) && !n.args.empty() && n.args[0].isNode())
      env[n.args[0].node] = r;
  }
  if (resultOf)
    for (const auto& [c, v] : env)
      if (v.kind == ops::Val::Kind::Sym && v.node >= 0) (*resultOf)[c] = v.node;
  return out;
}

}  // namespace kiln::passes
