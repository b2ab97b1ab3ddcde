// The grad_fn of a compiled graph's outputs (PyTorch prints it as CompiledFunctionBackward).
// The forward ran generated code, which records no autograd; backward recomputes the forward op
// by op with the eager kernels under grad mode and backpropagates through that (activation
// checkpointing of the whole graph), so gradients are exact while the forward stays compiled.
// Compiled backward graphs (AOTAutograd's joint graph) are not built yet.
#pragma once

#include "engine/autograd/node.h"

#include <functional>
#include <vector>

namespace kiln::autograd {

using GraphFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Makes outputs[i] (where differentiable[i]) results of one CompiledFunctionBackward node whose
// inputs are `inputs`; `eagerForward` recomputes the outputs from the inputs, recording autograd.
void attachCompiledFunction(GraphFn eagerForward, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                            const std::vector<bool>& differentiable);

}  // namespace kiln::autograd
