// A float32 GEMM with a bias added in cuBLASLt's epilogue, as PyTorch's addmm on CUDA does for a
// 1-d bias: one kernel, where a GEMM over a copy of the bias (beta = 1) takes a copy kernel and a
// read of the output. Internal to runtime/cuda_blas.cpp.
#pragma once

namespace kiln::runtime::cuda {

// The GEMM in cuda_blas.cpp's column-major terms: out^T (cols x m, leading dimension cols, out
// contiguous [m, cols]) = alpha * bm^T (op opB, ld ldb) * a^T (op opA, ld lda), plus bias[i] on
// row i (bias: contiguous float32, cols elements). False, with nothing launched, where cuBLASLt
// is not there or has no algorithm for the case: the caller then does it its own way.
bool gemmWithBiasEpilogue(const float* a, int opA, long long lda, const float* bm, int opB, long long ldb, float* out, long long m,
                          long long k, long long cols, const float* bias, float alpha, bool tf32);

}  // namespace kiln::runtime::cuda
