// What running a functional ATen graph (passes/lower_to_aten.h) leaves to its caller: copy the new
// values of mutated inputs back into the real inputs, drop those extra outputs, and hand back the
// outputs that alias an input as that view of the real input. One implementation for Kiln's
// backends (driver/backends.cpp) and for plugins that run a lowered graph (plugins/reference_backend).
#pragma once

#include "engine/passes/lower_to_aten.h"
#include "engine/tensor/tensor.h"

#include <utility>
#include <vector>

namespace kiln::runtime {

std::vector<tensor::Tensor> finishFunctionalOutputs(const std::vector<std::pair<int, int>>& inputMutations, size_t userOutputs,
                                                    const std::vector<passes::OutputAlias>& outputAliases,
                                                    const std::vector<tensor::Tensor>& in, std::vector<tensor::Tensor> outs);

}  // namespace kiln::runtime
