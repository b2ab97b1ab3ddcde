// Kernel IR -> CUDA C++ source, for NVRTC. One thread per point of the kernel's parallel loops
// (flattened, the last loop fastest); each thread runs the reduction nests of its point itself,
// in the order kir::place() gives (the same placement the LLVM backend uses), so a softmax row
// is one thread's three loops. Scalar semantics follow engine/codegen/README.md: NaN-propagating
// max/min, floor division and modulo, truncating float -> int casts, bool bytes 0/1.
//
//   extern "C" __global__ void kiln_<name>(float* in_x, ..., long long points) {
//     long long t = blockIdx.x * blockDim.x + threadIdx.x;  if (t >= points) return;
//     long long i1 = t % 16; t /= 16;  long long i0 = t;       // the parallel loops
//     <gap 0> for (r0 ...) { <nest 0> } <gap 1> ...
//   }
//
// Plain text generation: nothing here needs the CUDA toolkit.
#pragma once

#include "engine/kir/kernel_ir.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen::cuda {

// The entry point's name for kernel `k` (extern "C", so not mangled).
std::string cudaSymbol(const kir::Kernel& k);

// How many threads a launch needs: the product of the parallel loop extents (1 with none).
// `sizes`: the size symbols' values (s<N> at N) for a kernel over size expressions.
int64_t cudaPoints(const kir::Kernel& k, const std::vector<int64_t>& sizes = {});

// One translation unit with the helper functions and every kernel. Throws std::runtime_error
// for dtypes the backend does not support (f16, bf16).
std::string cudaSource(const std::vector<kir::Kernel>& kernels);

}  // namespace kiln::codegen::cuda
