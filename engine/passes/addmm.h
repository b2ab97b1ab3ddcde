// addmm: a matrix product whose only use adds a bias, mm(a, b) + bias, becomes one BLAS call,
// addmm(bias, a, b) (beta * bias + a @ b), as Inductor's pattern does for hand-written
// `x @ w + b`. The bias must already have the product's shape or broadcast along its rows
// ([N], [1, N], [M, N]); the matched mm is left for dce.
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

PassResult foldAddmm(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
