// PyTorch's printed form of a tensor: tensor([[1., 2.], ...]).
#pragma once

#include "engine/tensor/tensor.h"

#include <string>

namespace kiln::torchapi {

std::string formatTensor(const tensor::Tensor& t, const std::string& prefix = "tensor(", bool requiresGrad = false);

}  // namespace kiln::torchapi
