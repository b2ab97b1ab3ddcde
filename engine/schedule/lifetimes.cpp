#include "engine/schedule/lifetimes.h"

#include "engine/ops/op_table.h"

#include <algorithm>

namespace kiln::schedule {

std::map<int, size_t> lastUses(const ir::Graph& g, const ScheduledGraph& s) {
  std::map<int, size_t> lastUse;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const auto& st = s.steps[i];
    if (st.kind == Step::Kind::Kernel)
      for (int id : st.inputNodes) lastUse[id] = i;
    else ir::forEachNodeArg(*g.find(st.node), [&](int id) { lastUse[id] = i; });
  }
  // Graph outputs escape to the caller: they live past the last step, and so does everything
  // they are views of (below).
  if (const ir::Node* out = g.output()) ir::forEachNodeArg(*out, [&](int id) { lastUse[id] = s.steps.size(); });
  // Views (extern steps) alias their input: the input must outlive every use of the view.
  for (size_t i = s.steps.size(); i-- > 0;) {
    const auto& st = s.steps[i];
    if (st.kind != Step::Kind::Extern) continue;
    const ir::Node& n = *g.find(st.node);
    const ops::OpDef* op = ops::findOp(n.target);
    if (!op || (op->kind != ops::OpKind::View && n.target != "aten.view.dtype")) continue;  // other externs make new tensors
    auto it = lastUse.find(n.id);
    if (it == lastUse.end()) continue;
    ir::forEachNodeArg(n, [&](int id) { lastUse[id] = std::max(lastUse[id], it->second); });
  }
  return lastUse;
}

}  // namespace kiln::schedule
