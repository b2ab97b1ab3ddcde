// ops::recordEager (declared in engine/ops/op_table.h): what the eager dispatcher calls after every
// kernel.
#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"
#include "engine/ops/op_table.h"

namespace kiln::ops {

using autograd::isGradEnabled;
using autograd::OpNode;

namespace {

bool anyRequiresGrad(const Val& v) {
  if (v.kind == Val::Kind::Tensor) return v.t.requiresGrad();
  for (const auto& x : v.list)
    if (anyRequiresGrad(x)) return true;
  return false;
}

// Kernels may hand back a handle of an input (an identity view); every result is a new tensor.
void freshResults(Val& r) {
  if (r.kind == Val::Kind::Tensor) r.t.setAutograd(nullptr);
  for (auto& x : r.list) freshResults(x);
}

}  // namespace

void recordEager(const OpDef& op, const std::vector<Val>& args, Val& result) {
  freshResults(result);
  if (!isGradEnabled()) return;
  bool need = false;
  for (const auto& a : args) need = need || anyRequiresGrad(a);
  if (!need) return;
  auto node = std::make_shared<OpNode>(op, args, result);
  auto attach = [&](Val& r, int nr) {
    // Only floating results are differentiable (indices, masks and counts never require grad).
    if (r.kind != Val::Kind::Tensor || !ir::isFloating(r.t.dtype())) return;
    auto m = std::make_shared<tensor::AutogradMeta>();
    m->requiresGrad = true;
    m->gradFn = node;
    m->outputNr = nr;
    r.t.setAutograd(m);
    if (node->outputs.size() <= size_t(nr)) node->outputs.resize(size_t(nr) + 1);
    node->outputs[size_t(nr)] = m;
  };
  if (result.kind == Val::Kind::List)
    for (size_t i = 0; i < result.list.size(); ++i) attach(result.list[i], static_cast<int>(i));
  else attach(result, 0);
}

}  // namespace kiln::ops
