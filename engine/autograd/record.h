// Hook the eager dispatcher calls after every kernel: results are new tensors, and when grad
// mode is on and an argument requires grad, the result gets a grad_fn (an OpNode).
#pragma once

#include "engine/ops/val.h"

namespace kiln::ops { struct OpDef; }

namespace kiln::autograd {

void recordEager(const ops::OpDef& op, const std::vector<ops::Val>& args, ops::Val& result);

}  // namespace kiln::autograd
