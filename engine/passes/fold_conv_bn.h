// fold_conv_bn: a convolution followed by a per-channel affine chain -- what an eval-mode
// batch_norm decomposes into: (conv - mean) * rsqrt(var + eps) * gamma + beta -- becomes one
// convolution with a scaled weight and a shifted bias:
//     s = 1/sqrt(var + eps) * gamma          (per output channel)
//     conv(x, W * s[:, None, None, None], (b - mean) * s + beta)
// The folded weight and bias are computed in the graph from the parameters (they are graph
// inputs, not frozen constants), so the fold costs one pass over the weights per call instead
// of one over the activations, and the pointwise kernel after the convolution disappears.
// Inductor does the same with efficient_conv_bn_eval (without freezing) or its freezing
// conv/bn fold.
//
// Only a chain whose every step is add/sub/mul/div by a value that is the same along all dims
// but the channel dim (a [C, 1, 1] view, a [1, C, 1, 1] tensor, a Python number) and does not
// itself depend on the convolution folds; each intermediate must have no other user. Training
// batch_norm never matches: its statistics come from the activation.
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

PassResult foldConvBn(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
