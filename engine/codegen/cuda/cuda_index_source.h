// CUDA C++ for the index kernels the kernel IR cannot express: a load whose address comes from
// another tensor's element (embedding, index_select) and an accumulation into addresses that
// several threads may share (embedding_dense_backward: atomicAdd). One fixed translation unit
// with an entry point per element type, compiled by NVRTC like the generated kernels
// (engine/runtime/cuda_index_ops.cpp launches them).
//
// Every kernel sees its tensors as [outer, rows, inner] blocks of contiguous memory and runs a
// grid-stride loop over the `total` points it is given (so any grid size covers any tensor);
// indices are int64. An index outside [0, rows) is never read through: the kernel sets `*bad`
// and the caller raises PyTorch's IndexError after the launch.
//
//   kiln_gather_rows_<t>(src [outer, srcRows, inner], idx [n], out [outer, n, inner], ...)
//       out[o, i, j] = src[o, idx[i], j]
//   kiln_index_add_rows_<t>(src [outer, n, inner], idx [n], out [outer, outRows, inner], ...)
//       out[o, idx[i], j] += src[o, i, j] (/ counts[idx[i]] where counts is given;
//       idx[i] == skip adds nothing: embedding's padding_idx)
//   kiln_scatter_rows_<t>(src [outer, n, inner], idx [n], out [outer, outRows, inner], ...)
//       out[o, idx[i], j] = src[o, i, j] (a repeated index: one of the writes wins, as in PyTorch)
//   kiln_scatter_add_<t>(src [outer, n, inner], idx [outer, n, inner], out [outer, outRows, inner], ...)
//       out[o, idx[o, i, j], j] += src[o, i, j] (atomicAdd: scatter_add along a dim, which
//       max_pool2d's backward is; the order of the adds into one element is the GPU's)
//   kiln_count_indices(idx [n], counts [rows]): counts[idx[i]] += 1
//
// <t> is f32, f64 or i64 (gather, scatter) and f32 or f64 (index_add, scatter_add: atomicAdd on double needs
// sm_60, below every architecture NVRTC 12+ targets).
#pragma once

#include "engine/ir/types.h"

#include <string>

namespace kiln::codegen::cuda {

// The translation unit (plain text: needs no CUDA toolkit).
const std::string& cudaIndexKernelsSource();
// "f32", "f64", "i64", or "" for a dtype the index kernels have no entry point for.
std::string cudaIndexSuffix(ir::DType dtype, bool accumulate);
// `body` with "_S(" made "_<suffix>(" (the entry point's name) and every whole-word T made
// `type`: how the index and pooling units (cuda_pool_source.h) stamp one body per element type.
std::string stampCudaKernel(std::string body, const std::string& type, const std::string& suffix);

}  // namespace kiln::codegen::cuda
