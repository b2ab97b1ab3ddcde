// Rebuilder: the small helper rewriting passes share. It walks the input graph in order and
// builds the output graph, copying nodes (keeping their ids, so a node keeps its identity
// from pass to pass) or replacing them with new nodes recorded through a GraphDispatcher.
#pragma once

#include "engine/ops/graph_dispatcher.h"
#include "engine/passes/pass.h"

#include <map>

namespace kiln::passes {

class Rebuilder {
 public:
  explicit Rebuilder(const ir::Graph& in);

  // Copies `n` with its arguments remapped; returns the new node's id (== n.id).
  int copy(const ir::Node& n);
  // Makes old node `oldId` stand for new value `v` (a replacement).
  void replace(int oldId, const ops::Val& v);
  void replaceWithNode(int oldId, int newId) { map_[oldId] = newId; }
  ops::Val argValue(const ir::Arg& a) const;
  ir::Arg remap(const ir::Arg& a) const;
  // Sets provenance for nodes recorded by dispatcher() while replacing old node `n`.
  ops::GraphDispatcher& dispatcher(const ir::Node& replacing);

  // The output graph so far (applyRules: the nodes a rewrite appended).
  const ir::Graph& output() const { return out_; }
  ir::Graph take() { return std::move(out_); }

 private:
  ir::Graph out_;
  ops::GraphDispatcher d_;
  std::map<int, int> map_;
};

}  // namespace kiln::passes
