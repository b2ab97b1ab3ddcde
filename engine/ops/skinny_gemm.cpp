// The dot-product kernel of skinny_gemm.h. A block of 4 W rows (4 * k floats, in L1 for the
// usual k) is multiplied with every A row, 3 A rows at a time: 12 AVX2 accumulators, 7 loads
// per 12 FMAs, each W row read from memory once per call. Sums run over k in 8 lanes and are
// added across lanes at the end, so the rounding differs from OpenBLAS's (a few ulps); eager
// and compiled graphs both come here, so they agree with each other exactly.
#include "engine/ops/skinny_gemm.h"

#include "engine/tensor/parallel.h"
#include "engine/tensor/stop.h"

#include <immintrin.h>

#include <cstdlib>
#include <cstring>

namespace kiln::ops {

namespace {

#define KILN_AVX2 __attribute__((target("avx2,fma")))

KILN_AVX2 inline float lanesSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

struct Args {
  int64_t k;
  float alpha, beta;
  const float* a;
  int64_t lda;
  const float* w;
  int64_t ldw;
  float* c;
  int64_t ldc;
};

// C[i0 .. i0+S, j0 .. j0+R] from S rows of A and R rows of W.
template <int R, int S>
KILN_AVX2 void block(const Args& g, int64_t i0, int64_t j0) {
  const float* a = g.a + i0 * g.lda;
  const float* w = g.w + j0 * g.ldw;
  __m256 acc[S][R];
#pragma GCC unroll 4
  for (int s = 0; s < S; ++s)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[s][r] = _mm256_setzero_ps();
  int64_t kk = 0;
  for (; kk + 8 <= g.k; kk += 8) {
    __m256 wv[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) wv[r] = _mm256_loadu_ps(w + r * g.ldw + kk);
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) {
      const __m256 av = _mm256_loadu_ps(a + s * g.lda + kk);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[s][r] = _mm256_fmadd_ps(av, wv[r], acc[s][r]);
    }
  }
  for (int s = 0; s < S; ++s)
    for (int r = 0; r < R; ++r) {
      float x = lanesSum(acc[s][r]);
      for (int64_t t = kk; t < g.k; ++t) x += a[s * g.lda + t] * w[r * g.ldw + t];
      float* out = g.c + (i0 + s) * g.ldc + j0 + r;
      *out = g.beta == 0.0f ? g.alpha * x : g.alpha * x + g.beta * *out;  // beta 0: C is not read (NaN there stays out)
    }
}

// Every row of C for the R W rows from j: 3 A rows at a time, then the 1 or 2 left.
template <int R>
KILN_AVX2 void columns(const Args& g, int64_t m, int64_t j) {
  int64_t i = 0;
  for (; i + 3 <= m; i += 3) block<R, 3>(g, i, j);
  // Two rows left (the whole of a batch of 2) in one pass over the W rows, not two: with a
  // long k the W block is out of cache and each pass reads it from memory.
  if (m - i == 2) block<R, 2>(g, i, j);
  else if (m - i == 1) block<R, 1>(g, i, j);
}

// KILN_SKINNY_GEMM=0 sends every product to OpenBLAS, for measuring and bisecting.
bool usable() {
  static const bool ok = [] {
    const char* v = std::getenv("KILN_SKINNY_GEMM");
    if (v && std::strcmp(v, "0") == 0) return false;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return ok;
}

}  // namespace

bool skinnySgemmNT(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* w, int64_t ldw, float beta,
                   float* c, int64_t ldc) {
  if (m <= 0 || m > kSkinnyMaxRows || n <= 0 || k <= 0 || !usable()) return false;
  const Args g{k, alpha, beta, a, lda, w, ldw, c, ldc};
  const int64_t quads = n / 4, units = quads + n % 4;  // a unit: 4 columns, or one of the last n % 4
  auto run = [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      if (u < quads) columns<4>(g, m, 4 * u);
      else columns<1>(g, m, 4 * quads + (u - quads));
    }
  };
  // Threads pay off from about a million multiply-adds (a wake-up of the pool costs microseconds).
  constexpr double kParallelWork = 1 << 20;
  if (double(m) * double(n) * double(k) >= kParallelWork && units > 1) tensor::parallelBlocks(units, run);
  else
    for (int64_t u = 0; u < units; ++u) tensor::checkStop(), run(u, u + 1);  // Ctrl-C / time limits stop it between blocks
  return true;
}

}  // namespace kiln::ops
