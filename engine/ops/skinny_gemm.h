// float32 products with few rows against a weight read row by row: C = alpha * A @ W^T + beta * C
// where A is [m, k] and W is [n, k], both with contiguous rows (nn.Linear's x @ weight.t(), the
// permuted weight of aten.addmm/mm). OpenBLAS packs all of W (the big operand) before every such
// product, which for a handful of rows costs as much as the arithmetic. kiln_linalg_bench, one
// AVX2 thread (docs/perf.md, "Few-row products"): the seed MLP's addmm 16x1024 @ t(1024x1024)
// 0.80 ms on OpenBLAS, 0.50 ms here; the seed CNN's classifier 2x131072 @ t(10x131072), one pass
// over a 5 MiB weight, 0.77 vs 0.16 ms. The kernel is AVX2 (8 lanes) even on AVX-512 machines:
// a 16-lane variant could not be measured on the development machine.
#pragma once

#include <cstdint>

namespace kiln::ops {

// Rows of A up to which the dot-product kernel beats OpenBLAS (measured: at 32 rows the two are
// close, at 64 OpenBLAS is faster).
constexpr int64_t kSkinnyMaxRows = 32;

// Whether the dot-product kernel beats OpenBLAS on an m x k @ k x n product: a long k (the
// lanes' final additions are paid once per element, which a short k does not amortise), or few
// rows, where OpenBLAS's packing dominates. Measured on one AVX2 thread: m 16, n 1024: k 128
// 0.14 vs 0.11 ms (OpenBLAS), k 256 a tie, k 512 0.28 vs 0.34; m 32, k 4, n 4096: 0.62 vs 0.11;
// m 2, k 256: 0.035 vs 0.100; m 4, k 128: 0.027 vs 0.045.
inline bool skinnyPays(int64_t m, int64_t k) { return m <= kSkinnyMaxRows && (k >= 512 || (m <= 4 && k >= 32)); }

// Computes C (row stride ldc) = alpha * A @ W^T + beta * C, each C element a dot product of an A
// row and a W row over k; with beta == 0, C is not read. Returns false, touching nothing, where
// it does not apply (m above kSkinnyMaxRows, a CPU without AVX2 and FMA, KILN_SKINNY_GEMM=0):
// the caller's BLAS runs.
// Splits the columns over the thread pool (tensor::parallelBlocks) when the product is big.
bool skinnySgemmNT(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* w, int64_t ldw, float beta,
                   float* c, int64_t ldc);

}  // namespace kiln::ops
