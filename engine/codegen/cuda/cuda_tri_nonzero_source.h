// CUDA C++ for tril / triu and nonzero on CUDA tensors (engine/runtime/cuda_tri_nonzero_ops.cpp
// launches them). The kernel IR has no value for a loop index (a load's address is affine in
// the loops, but no instruction reads `i` itself), so neither tril's `col - row <= k` nor
// nonzero's coordinates can be generated; they are one fixed unit here, compiled by NVRTC like
// the index and pooling kernels.
//
// Both read their input through a `CudaStrided` (sizes and element strides, any view: a
// transpose, a slice, an expanded dim) passed by value, so no copy is made first; element i of
// the input in row-major order is at kiln_strided_offset(s, i).
//
//   kiln_triangle_<s>(x, y, strided x, total, rows, cols, k, lower)
//       y (contiguous) = x where col - row <= k (lower) or >= k (upper) in the last two dims, else
//       0. Copy-or-zero moves bits only and zero is all-zero bits in every dtype, so one entry
//       point per element size serves every dtype: <s> is u8, u16, u32, u64.
//   kiln_nonzero_count_<s>(x, strided x, total, chunk, counts)
//       block b counts the nonzero elements of [b * chunk, (b + 1) * chunk) into counts[b]
//   kiln_nonzero_write_<s>(x, strided x, total, chunk, starts, out)
//       block b writes the coordinates of its chunk's nonzero elements, in row-major order, as
//       rows starts[b], starts[b] + 1, ... of out [n, rank] (int64); a block walks its chunk in
//       tiles of blockDim (a multiple of 32) threads, ranking each tile with warp ballots
//   "Nonzero" is the CPU's `v != 0`: on the bits with the sign masked off for floating types
//   (so -0.0 is zero and NaN is not); <s> is f16 (float16 and bfloat16), f32, f64, and u8,
//   u16, u32, u64 for bool and the integers.
//
// Every kernel's scalars are long long; the triangle kernel runs a grid-stride loop.
#pragma once

#include "engine/ir/types.h"

#include <string>

namespace kiln::codegen::cuda {

// PyTorch's limit for a CUDA kernel's tensor (MAX_TENSORINFO_DIMS).
inline constexpr int kCudaMaxDims = 25;

// The kernels' `KilnStrided` parameter, field for field (passed by value to cuLaunchKernel).
struct CudaStrided {
  long long rank = 0;
  long long size[kCudaMaxDims] = {};
  long long stride[kCudaMaxDims] = {};
};

// The translation unit (plain text: needs no CUDA toolkit).
const std::string& cudaTriNonzeroKernelsSource();
// The triangle kernels' suffix for dtype (by its element size: "u8" ... "u64").
std::string cudaTriangleSuffix(ir::DType dtype);
// The nonzero kernels' suffix for dtype ("f16", "f32", "f64", "u8" ... "u64").
std::string cudaNonzeroSuffix(ir::DType dtype);

}  // namespace kiln::codegen::cuda
