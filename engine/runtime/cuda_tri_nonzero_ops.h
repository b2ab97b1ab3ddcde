// tril, triu and nonzero on CUDA tensors (cuda_tri_nonzero_ops.cpp), as the fixed kernels of
// engine/codegen/cuda/cuda_tri_nonzero_source.h: every dtype, any leading batch dims and any
// strides (the kernels read a view in place). nonzero synchronizes, as PyTorch's does: one
// count per block comes back to the host to size the [n, rank] int64 result, then a second
// kernel writes the coordinates in row-major order. torch.nonzero(as_tuple=True), x.nonzero()
// and torch.where(cond) reach aten.nonzero and take views of its result. Compiled graphs reach
// tril / triu as extern steps (nonzero breaks the graph: its size depends on the data).
// cuda_ops.cpp tries these after pooling.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/tensor/device.h"

#include <optional>
#include <vector>

namespace kiln::runtime::cuda {

// The op's result on `device`, or nullopt for another op. Argument errors are the CPU op's.
std::optional<ops::Val> triNonzeroOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& device);

}  // namespace kiln::runtime::cuda
