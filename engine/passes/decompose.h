// decompose: expands every op whose op-table entry has a decomposition into core ATen ops
// (Inductor's default decompositions: silu -> x * sigmoid(x), ...), repeatedly, until only
// core ops remain. Each expansion is recorded as rule "decompose <op>".
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

PassResult decompose(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
