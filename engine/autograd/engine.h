// The backward pass: runs the graph's nodes from the roots in dependency order (highest
// sequence number first among ready nodes, as PyTorch's engine does on the CPU), summing
// gradients that meet at a node and accumulating into leaves' .grad.
#pragma once

#include "engine/tensor/tensor.h"

#include <vector>

namespace kiln::autograd {

// Tensor.backward / torch.autograd.backward. `grads[i]` is the gradient of `roots[i]`
// (undefined: ones, only for one-element roots). Errors are TorchErrors worded like PyTorch's.
void backward(const std::vector<tensor::Tensor>& roots, const std::vector<tensor::Tensor>& grads, bool retainGraph, bool createGraph);

}  // namespace kiln::autograd
