#include "engine/schedule/iteration_space.h"

#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/op_table.h"

#include <algorithm>

namespace kiln::schedule {

std::optional<std::vector<int64_t>> concreteSizes(const ir::TensorType& t) {
  std::vector<int64_t> s;
  for (const auto& d : t.sizes) {
    if (d.symbolic() && d.value <= 0) return std::nullopt;  // a symbol without its hint (read from text)
    s.push_back(d.value);
  }
  return s;
}

std::optional<IterationSpace> reductionSpace(const ir::Graph& g, const ir::Node& n) {
  if (n.kind != ir::NodeKind::CallFunction || n.args.empty() || !n.args[0].isNode()) return std::nullopt;
  const ops::OpDef* op = ops::findOp(n.target);
  if (!op || !op->reduction || op->kind != ops::OpKind::Reduction) return std::nullopt;
  const ir::Node* in = g.find(n.args[0].node);
  if (!in || in->types.size() != 1) return std::nullopt;
  auto shape = concreteSizes(in->types[0]);
  if (!shape) return std::nullopt;
  std::vector<ops::Val> args;
  for (const auto& a : n.args) args.push_back(ops::GraphDispatcher::fromArg(g, a));
  IterationSpace s{*shape, op->reduction(args).dims};
  std::sort(s.reduced.begin(), s.reduced.end());
  return s;
}

Layout layoutIn(const IterationSpace& space, const std::vector<int64_t>& sizes) {
  if (sizes == space.shape) return Layout::Full;
  if (space.reduced.empty()) return Layout::None;
  std::vector<int64_t> keep, drop;
  for (size_t d = 0; d < space.shape.size(); ++d) {
    const bool r = std::binary_search(space.reduced.begin(), space.reduced.end(), static_cast<int64_t>(d));
    keep.push_back(r ? 1 : space.shape[d]);
    if (!r) drop.push_back(space.shape[d]);
  }
  if (sizes == keep) return Layout::KeepDims;
  if (sizes == drop) return Layout::DropDims;
  return Layout::None;
}

}  // namespace kiln::schedule
