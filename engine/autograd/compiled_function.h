// The grad_fn of a compiled graph's outputs (PyTorch prints it as CompiledFunctionBackward).
// The forward ran generated code, which records no autograd; backward recomputes the forward op
// by op with the eager kernels under grad mode and backpropagates through that (activation
// checkpointing of the whole graph), so gradients are exact while the forward stays compiled.
// With a compiled backward (driver::BackwardCode: the graph's backward through the compiler),
// backward runs that instead, except under create_graph=True, which needs the recorded ops. A
// partitioned backward's closure holds the activations its forward saved; the node drops it
// once backward released the graph.
#pragma once

#include "engine/autograd/node.h"

#include <functional>
#include <optional>
#include <vector>

namespace kiln::autograd {

using GraphFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
// (the forward's inputs, the gradient of each output: undefined where none flowed) -> the
// gradient of each input (undefined where none).
// nullopt: no compiled backward after all (the node recomputes eagerly).
using BackwardFn = std::function<std::optional<std::vector<Tensor>>(const std::vector<Tensor>&, const std::vector<Tensor>&)>;

// Makes outputs[i] (where differentiable[i]) results of one CompiledFunctionBackward node whose
// inputs are `inputs`; `eagerForward` recomputes the outputs from the inputs, recording autograd.
void attachCompiledFunction(GraphFn eagerForward, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                            const std::vector<bool>& differentiable, BackwardFn compiledBackward = nullptr);

}  // namespace kiln::autograd
