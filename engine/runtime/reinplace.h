// Mutated inputs written in place. A functional graph returns a mutated input's new value as an
// extra output, which the caller then copies into the input (functional_outputs.h): a compiled
// `y.copy_(x)` or `p.add_(g)` made a fresh buffer and a copy of it. Where the kernel that computes
// the new value can write it straight into the input, the runtime (GpuGraph, and CompiledGraph on
// the CPU) binds that output to the input's storage and the copy finds nothing to do (a tensor copied onto itself is left alone).
//
// A kernel may do so when no later step reads the input's old value, and the kernel itself reads
// the input only at the element it writes (each element is read by the thread that writes it,
// before it writes it: pointwise `y.mul_(2)`, not `y.copy_(y.flip(0))`). The runtime also checks
// the input at each call: on the same device, of the output's dtype and sizes, contiguous.
#pragma once

#include "engine/ir/graph.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/tensor/tensor.h"

#include <map>
#include <utility>
#include <vector>

namespace kiln::runtime {

// Output node id -> the placeholder position (input index) it may be written into, for the
// graph's `mutations` (input index, graph output index) that qualify.
std::map<int, size_t> inPlaceMutations(const ir::Graph& g, const schedule::ScheduledGraph& sched,
                                       const std::vector<std::pair<int, int>>& mutations);

// Whether `input` can hold output node `type`'s value at this call (same dtype and sizes,
// contiguous, on `device`).
bool canWriteInto(const tensor::Tensor& input, const ir::TensorType& type, const tensor::Device& device);

// canWriteInto for inputs[i], which also shares its storage with no other input (writing into it
// would change what that input reads): the check GpuGraph and CompiledGraph make at each call.
bool canWriteInto(const std::vector<tensor::Tensor>& inputs, size_t i, const ir::TensorType& type, const tensor::Device& device);

}  // namespace kiln::runtime
