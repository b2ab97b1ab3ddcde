// float32 products with few rows against a weight read row by row: C = alpha * A @ W^T + beta * C
// where A is [m, k] and W is [n, k], both with contiguous rows (nn.Linear's x @ weight.t(), the
// permuted weight of aten.addmm/mm). OpenBLAS packs all of W (the big operand) before every such
// product, which for a handful of rows costs as much as the arithmetic: the seed MLP's
// 16x1024 @ 1024x1024 took 0.78 ms with OpenBLAS and 0.52 ms here, the seed CNN's classifier
// (2x131072 @ 131072x10, a pass over a 5 MiB weight) 0.83 ms vs 0.24 ms (one AVX2 thread,
// docs/perf.md, "Skinny products").
#pragma once

#include <cstdint>

namespace kiln::ops {

// Rows of A up to which the dot-product kernel beats OpenBLAS (measured: at 32 rows the two are
// close, at 64 OpenBLAS is faster).
constexpr int64_t kSkinnyMaxRows = 32;

// Computes C (row stride ldc) = alpha * A @ W^T + beta * C, each C element a dot product of an A
// row and a W row over k; with beta == 0, C is not read. Returns false, touching nothing, where
// it does not apply (m above kSkinnyMaxRows, a CPU without AVX2 and FMA, KILN_SKINNY_GEMM=0):
// the caller's BLAS runs.
// Splits the columns over the thread pool (tensor::parallelBlocks) when the product is big.
bool skinnySgemmNT(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* w, int64_t ldw, float beta,
                   float* c, int64_t ldc);

}  // namespace kiln::ops
