// cse: common-subexpression elimination. Two calls of the same op on the same arguments
// (pure ops only: everything in the op table is functional after lowering) become one.
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

PassResult cse(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
