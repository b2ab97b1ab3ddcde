// dce: removes call nodes whose results nothing uses (every op is pure after lowering).
// Graph inputs are kept even when unused: they are the compiled graph's calling convention.
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

PassResult dce(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
