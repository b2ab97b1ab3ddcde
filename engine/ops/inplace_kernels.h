// In-place arithmetic that writes straight into its tensor, for the eager updates an optimizer
// step is made of (p.add_(grad, alpha=-lr)): one pass over the elements instead of a scaled
// copy, a sum and a copy back.
#pragma once

#include "engine/tensor/tensor.h"

namespace kiln::ops {

// self += alpha * other, rounded as a multiply then an add (inplace_kernels.cpp says why). Only for float32 CPU tensors of one shape, both
// contiguous, in separate storage; returns false (and writes nothing) for anything else, which the caller computes as before.
bool addScaledInPlace(tensor::Tensor& self, const tensor::Tensor& other, double alpha);

}  // namespace kiln::ops
