// 2-D pooling on CUDA tensors (cuda_pool_ops.cpp): max_pool2d (with and without indices),
// avg_pool2d, _adaptive_avg_pool2d and the backward ops of the last two, as the fixed kernels of
// engine/codegen/cuda/cuda_pool_source.h. max_pool2d's backward is the scatter_add its
// derivative records (cuda_index_ops.cpp: an atomicAdd kernel). cuda_ops.cpp tries these after
// cuDNN and before the index ops.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/tensor/device.h"

#include <optional>
#include <vector>

namespace kiln::runtime::cuda {

// The op's result on `device`, or nullopt for an op (or a dtype) these kernels do not take.
// Argument errors are the CPU op's (its meta runs first).
std::optional<ops::Val> poolOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& device);

}  // namespace kiln::runtime::cuda
