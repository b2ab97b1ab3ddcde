// Eager ops on CUDA tensors that the one-node graph route cannot make kernels for (an index read
// from memory, an accumulation into shared addresses, random draws, results assembled from
// views): embedding, index_select, embedding_dense_backward, select_backward, slice_backward,
// cat, constant_pad_nd, nll_loss_forward, rand_like / randn_like / bernoulli. cuda_ops.cpp tries
// them after cuBLAS and before the graph route.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/tensor/device.h"

#include <optional>
#include <vector>

namespace kiln::runtime::cuda {

// The op's result on `device`, or nullopt where this file has no kernel for it (the graph route
// is tried next).
std::optional<ops::Val> indexOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& device);

// The ones among them made of views, fills, copies and other ops (select_backward,
// slice_backward, cat, constant_pad_nd, nll_loss_forward). With a CPU `device` they run with CPU
// fills and copies, so tests check the composition against the op's own CPU kernel.
// The last resort for an op with a decomposition that no kernel above takes (batch_norm in
// training and eval): its decomposition run op by op through the eager dispatcher, each op on
// the device (a NotImplementedError names the op that has no device kernel). In-place updates
// of the decomposition (running stats) reach the arguments. nullopt without a decomposition.
std::optional<ops::Val> decomposedOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& device);

std::optional<ops::Val> composedOp(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& device);

}  // namespace kiln::runtime::cuda
