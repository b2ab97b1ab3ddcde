// The grad_fn of a torch.autograd.Function's outputs (PyTorch names it after the class:
// "TimesThreeBackward"). Its backward hands the output gradients to `backward` — the user's
// Function.backward, run by the torch layer, which knows the interpreter — and checks what
// comes back against the forward's inputs, as PyTorch's validate_outputs does.
#pragma once

#include "engine/autograd/node.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln::autograd {

// Output gradients in (undefined: none flowed and materialization is off) -> one gradient
// per forward argument (undefined: None).
using CustomBackward = std::function<std::vector<Tensor>(std::vector<Tensor> gradOutputs)>;

struct CustomFunctionSpec {
  std::string name;  // "TimesThreeBackward"
  CustomBackward backward;
  std::vector<Tensor> inputs;    // one per forward argument (undefined: not a tensor)
  bool materializeGrads = true;  // ctx.set_materialize_grads: None gradients become zeros
};

// Makes *outputs[i] (where differentiable[i]) results of one node running `spec.backward`.
// The outputs' autograd state is replaced (a dirty input is rebased onto the node).
void attachCustomFunction(CustomFunctionSpec spec, const std::vector<Tensor*>& outputs, const std::vector<bool>& differentiable);

}  // namespace kiln::autograd
