// The few-rows float32 product (engine/ops/skinny_gemm.h) against a double reference: every
// remainder of its 4-column x 3-row blocks and of its 8-lane k loop, strided rows, alpha/beta,
// beta 0 not reading C, the thread split; and aten.addmm / aten.mm routed through it (a linear
// layer's x @ w.t() with the bias broadcast and negative values, then relu).
#include "engine/ops/skinny_gemm.h"
#include "tests/ops_linalg/linalg_test_util.h"

#include <limits>

namespace kiln::linalg_test {
namespace {

// Values with both signs and no pattern that a wrong index would reproduce.
std::vector<float> values(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = float(std::sin(0.37 * double(i) + 1.3 * seed));
  return v;
}

// C = alpha * A @ W^T + beta * C in double; C's extra columns (ldc > n) are left alone. `bound`
// gets the largest sum of |a * w| of an element: float32 rounding grows with it.
void reference(int64_t m, int64_t n, int64_t k, double alpha, const std::vector<float>& a, int64_t lda, const std::vector<float>& w,
               int64_t ldw, double beta, std::vector<double>& c, int64_t ldc, double& bound) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0, abs = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double t = double(a[size_t(i * lda + p)]) * double(w[size_t(j * ldw + p)]);
        s += t;
        abs += std::fabs(t);
      }
      bound = std::max(bound, std::fabs(alpha) * abs);
      double& out = c[size_t(i * ldc + j)];
      out = alpha * s + (beta == 0 ? 0.0 : beta * out);
    }
}

void check(int64_t m, int64_t n, int64_t k, float alpha, float beta, int64_t pad) {
  const int64_t lda = k + pad, ldw = k + 2 * pad, ldc = n + pad;
  const std::vector<float> a = values(m * lda, 1), w = values(n * ldw, 2);
  std::vector<float> c = values(m * ldc, 3);
  // beta 0: C's old values must not be read; NaN there would show.
  if (beta == 0.0f)
    for (float& x : c) x = std::numeric_limits<float>::quiet_NaN();
  std::vector<double> want(c.begin(), c.end());
  double bound = 0;
  reference(m, n, k, alpha, a, lda, w, ldw, beta, want, ldc, bound);
  const double tol = 5e-6 * (1.0 + bound + std::fabs(beta) * 2.0);
  ASSERT_TRUE(ops::skinnySgemmNT(m, n, k, alpha, a.data(), lda, w.data(), ldw, beta, c.data(), ldc));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const size_t o = size_t(i * ldc + j);
      if (j >= n) {
        // Past the n columns: untouched.
        if (beta == 0.0f) {
          EXPECT_TRUE(std::isnan(c[o])) << "m " << m << " n " << n << " k " << k << " at " << i << "," << j;
        } else {
          EXPECT_EQ(double(c[o]), want[o]);
        }
        continue;
      }
      EXPECT_NEAR(c[o], want[o], tol) << "m " << m << " n " << n << " k " << k << " at " << i << "," << j;
    }
}

TEST(SkinnyGemm, EveryBlockRemainderMatchesTheReference) {
  for (int64_t m : {1, 2, 3, 4, 5, 7, 16, 32})
    for (int64_t n : {1, 3, 4, 5, 10, 13})
      for (int64_t k : {1, 7, 8, 9, 37}) check(m, n, k, 1.0f, 0.0f, 0);
}

TEST(SkinnyGemm, StridedRowsAlphaAndBeta) {
  check(5, 9, 21, 1.0f, 1.0f, 3);    // addmm: C holds the bias rows, beta 1
  check(6, 7, 40, -0.5f, 0.25f, 5);  // general alpha/beta
  check(3, 6, 17, 2.0f, 0.0f, 4);    // beta 0 with strides: NaN in C stays out
}

TEST(SkinnyGemm, BigProductSplitOverThreadsMatches) {
  check(16, 257, 1024, 1.0f, 0.0f, 0);  // above the threshold for the thread split
  check(2, 10, 70000, 1.0f, 1.0f, 1);   // the CNN classifier's shape: few columns, a long k
}

TEST(SkinnyGemm, PaysOnlyForFewRowsOrALongK) {
  EXPECT_TRUE(ops::skinnyPays(16, 1024));
  EXPECT_TRUE(ops::skinnyPays(2, 64));
  EXPECT_FALSE(ops::skinnyPays(32, 4));  // short k: OpenBLAS is 6x faster
  EXPECT_FALSE(ops::skinnyPays(16, 128));
  EXPECT_FALSE(ops::skinnyPays(64, 4096));
}

TEST(SkinnyGemm, DeclinesTallProducts) {
  std::vector<float> a(64 * 4, 1.0f), w(4 * 4, 1.0f), c(64 * 4, 7.0f);
  EXPECT_FALSE(ops::skinnySgemmNT(ops::kSkinnyMaxRows + 1, 4, 4, 1.0f, a.data(), 4, w.data(), 4, 0.0f, c.data(), 4));
  EXPECT_EQ(c[0], 7.0f);  // untouched: the caller's BLAS runs
}

// A linear layer as the graph has it: addmm(bias, x, weight.t()) then relu; the weight is read
// transposed in place (a permuted view), the bias broadcast over the rows, and half the
// pre-activations negative, so a bias or sign mistake changes the relu output.
TEST(SkinnyGemm, AddmmLinearReluThroughTheOpTable) {
  constexpr int64_t k = 520;  // long enough for the kernel to pay (skinnyPays)
  ASSERT_TRUE(ops::skinnyPays(16, k));
  for (int64_t m : {1, 2, 16, 40}) {  // 40: above kSkinnyMaxRows, OpenBLAS; same answer
    Tensor x = seq({m, k}, 11, 0.05, 5), weight = seq({13, k}, 7, 0.025, 3), bias = seq({13}, 5, 1.5, 2);
    Tensor wt = weight.view({k, 13}, {1, k}, 0);
    Tensor y = run("aten.addmm.default", {Val::of(bias), Val::of(x), Val::of(wt)});
    Tensor r = run("aten.relu.default", {Val::of(y)});
    ASSERT_EQ(r.sizes(), (Shape{m, 13}));
    int negatives = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < 13; ++j) {
        double s = bias.loadAt(j);
        for (int64_t p = 0; p < k; ++p) s += x.loadAt(i * k + p) * weight.loadAt(j * k + p);
        negatives += s < 0;
        EXPECT_NEAR(y.loadAt(i * 13 + j), s, 1e-3) << m << ": " << i << "," << j;
        EXPECT_NEAR(r.loadAt(i * 13 + j), std::max(s, 0.0), 1e-3) << m << ": " << i << "," << j;
      }
    EXPECT_GT(negatives, 0);  // relu had something to clamp
  }
  // A non-contiguous input (every other row of a wider matrix), a [1, n] bias and the weight.
  Tensor big = seq({8, k + 10}, 13, 0.05, 6), weight = seq({5, k}, 7, 0.025, 3), bias = seq({1, 5}, 5, 1.5, 2);
  Tensor x = big.view({4, k}, {2 * (k + 10), 1}, 3);
  Tensor y = run("aten.addmm.default", {Val::of(bias), Val::of(x), Val::of(weight.view({k, 5}, {1, k}, 0))});
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      double s = bias.loadAt(j);
      for (int64_t p = 0; p < k; ++p) s += big.loadAt(3 + i * 2 * (k + 10) + p) * weight.loadAt(j * k + p);
      EXPECT_NEAR(y.loadAt(i * 5 + j), s, 1e-3) << i << "," << j;
    }
}

}  // namespace
}  // namespace kiln::linalg_test
