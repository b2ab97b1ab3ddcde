// GraphDispatcher: runs ops by recording them as nodes of an ATen-level graph. Lowering
// (torch-level graph -> ATen) and decompositions are written as ordinary op calls against a
// Dispatcher; this one turns those calls into graph nodes with provenance.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ops/op_table.h"

namespace kiln::ops {

class GraphDispatcher : public Dispatcher {
 public:
  explicit GraphDispatcher(ir::Graph& g) : g_(g) {}
  using Dispatcher::call;
  Val call(const OpDef& op, const std::vector<Val>& args) override;
  // Provenance stamped on every node recorded until changed.
  ir::Provenance provenance;
  bool noGrad = false;  // stamped likewise: the nodes come from a no-grad region

  void mutateInput(const Val& target, const Val& value) override {
    if (target.kind == Val::Kind::Sym && value.kind == Val::Kind::Sym) mutations.emplace_back(target.node, value.node);
  }
  // (node updated in place, node holding its new value), in the order they happened.
  std::vector<std::pair<int, int>> mutations;

  static ir::Arg toArg(const Val& v);
  // The graph value of an argument (a node ref becomes a Sym with the node's type).
  static Val fromArg(const ir::Graph& g, const ir::Arg& a);

 private:
  ir::Graph& g_;
};

// "aten.mul.Tensor" -> "mul" (the name FX gives the node).
std::string atenNodeName(const std::string& opName);

}  // namespace kiln::ops
