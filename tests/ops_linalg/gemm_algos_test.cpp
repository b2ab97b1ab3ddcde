// The GEMM implementations max-autotune chooses among (engine/ops/gemm_algos.h): each, pinned,
// computes every layout and alpha/beta of aten.mm / addmm / bmm as the reference does, reports
// itself as the one that ran, and one that cannot run a product leaves it to the default rule.
#include "engine/ops/gemm_algos.h"
#include "engine/ops/blas_core.h"
#include "engine/ops/skinny_gemm.h"
#include "tests/ops_linalg/linalg_test_util.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <limits>

namespace kiln::linalg_test {
namespace {

// a @ b (+ beta * bias) in double, the operands read through their strides.
std::vector<double> reference(const Tensor& a, const Tensor& b, const Tensor* bias, double beta, double alpha) {
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  std::vector<double> out(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += a.loadAt(i * a.strides()[0] + p * a.strides()[1]) * b.loadAt(p * b.strides()[0] + j * b.strides()[1]);
      const double bv = bias ? bias->loadAt(bias->dim() == 1 ? j : i * bias->strides()[0] + j * bias->strides()[1]) : 0.0;
      out[size_t(i * n + j)] = alpha * s + (beta == 0 ? 0.0 : beta * bv);
    }
  return out;
}

// Row-major, or the transpose of a row-major matrix (a linear layer's weight.t()).
Tensor matrix(int64_t rows, int64_t cols, bool columnMajor, int64_t mod, double scale) {
  if (!columnMajor) return seq({rows, cols}, mod, scale, mod / 2);
  return seq({cols, rows}, mod, scale, mod / 2).view({rows, cols}, {1, rows}, 0);
}

TEST(GemmAlgos, EachPinnedImplementationComputesEveryLayout) {
  for (const auto& algo : ops::gemmAlgos())
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (int64_t m : {1, 3, 16, 70}) {
          const int64_t k = 37, n = 11;
          Tensor a = matrix(m, k, ta, 7, 0.25), b = matrix(k, n, tb, 5, 0.5);
          ops::GemmAlgoScope pin(algo.name);
          Tensor y = run("aten.mm.default", {Val::of(a), Val::of(b)});
          expectValues(y, {m, n}, reference(a, b, nullptr, 0, 1), 1e-5);
        }
}

TEST(GemmAlgos, AddmmAlphaBetaAndBatchedProducts) {
  Tensor bias = seq({9}, 5, 1.5, 2), a = matrix(6, 40, false, 7, 0.25), b = matrix(40, 9, true, 5, 0.5);
  for (const auto& algo : ops::gemmAlgos()) {
    ops::GemmAlgoScope pin(algo.name);
    Tensor y = run("aten.addmm.default", {Val::of(bias), Val::of(a), Val::of(b), Val::real(0.5), Val::real(-2.0)});
    expectValues(y, {6, 9}, reference(a, b, &bias, 0.5, -2.0), 1e-5);
    Tensor x3 = seq({3, 4, 10}, 7, 0.5, 3), w3 = seq({3, 10, 6}, 5, 0.25, 2);
    Tensor z = run("aten.bmm.default", {Val::of(x3), Val::of(w3)});
    for (int64_t i = 0; i < 3; ++i) {
      Tensor xi = x3.view({4, 10}, {10, 1}, i * 40), wi = w3.view({10, 6}, {6, 1}, i * 60);
      std::vector<double> want = reference(xi, wi, nullptr, 0, 1), got = z.toDoubles();
      for (size_t e = 0; e < want.size(); ++e) EXPECT_NEAR(got[size_t(i * 24) + e], want[e], 1e-5) << algo.name << " batch " << i;
    }
  }
}

// addmm with beta 0 ignores its input, NaN included, whichever implementation runs.
TEST(GemmAlgos, BetaZeroDoesNotReadTheOutputOrTheBias) {
  Tensor bias = Tensor::empty({2, 3}, ir::DType::Float32);
  for (int64_t i = 0; i < 6; ++i) bias.storeAt(i, std::numeric_limits<double>::quiet_NaN());
  Tensor a = seq({2, 4}), b = seq({4, 3});
  for (const auto& algo : ops::gemmAlgos()) {
    ops::GemmAlgoScope pin(algo.name);
    Tensor y = run("aten.addmm.default", {Val::of(bias), Val::of(a), Val::of(b), Val::real(0.0), Val::real(1.0)});
    for (double v : y.toDoubles()) EXPECT_FALSE(std::isnan(v)) << algo.name;
  }
}

// gemm() hands every library a C it never zeroed (recycled memory may hold NaN bit patterns):
// each must write C without reading it when beta is 0, whatever the sizes.
TEST(GemmAlgos, LibrariesDoNotReadCWhenBetaIsZero) {
  for (int64_t m : {1, 3, 64})
    for (int64_t n : {1, 5, 33})
      for (int64_t k : {1, 7, 300}) {
        std::vector<float> a(size_t(m * k), 0.5f), b(size_t(k * n), 0.25f);
        const float want = 0.125f * float(k);
        std::vector<float> c(size_t(m * n), std::numeric_limits<float>::quiet_NaN());
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a.data(), int(k), b.data(), int(n), 0.0f,
                    c.data(), int(n));
        for (float v : c) ASSERT_EQ(v, want) << "OpenBLAS " << m << "x" << n << "x" << k;
        std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
        ASSERT_EQ(dnnl_sgemm('N', 'N', m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n), dnnl_success);
        for (float v : c) ASSERT_EQ(v, want) << "oneDNN " << m << "x" << n << "x" << k;
        if (m <= ops::kSkinnyMaxRows) {  // the few-row kernel: W read row by row (b^T is all 0.25 too)
          std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
          std::vector<float> w(size_t(n * k), 0.25f);
          if (ops::skinnySgemmNT(m, n, k, 1.0f, a.data(), k, w.data(), k, 0.0f, c.data(), n)) {
            for (float v : c) ASSERT_NEAR(v, want, 1e-5f) << "few rows " << m << "x" << n << "x" << k;
          }
        }
      }
}

TEST(GemmAlgos, ThePinnedImplementationRunsOrTheDefaultRuleSaysWhichDid) {
  Tensor x = seq({16, 512}, 7, 0.05, 3), w = matrix(512, 64, true, 5, 0.05);          // few rows, weight.t()
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");  // the few-row kernel's
  for (const char* algo : {"openblas", "few_rows", "onednn"}) {
    ops::GemmAlgoScope pin(algo);
    run("aten.mm.default", {Val::of(x), Val::of(w)});
    EXPECT_EQ(ops::lastGemmAlgo(), std::string(algo) == "few_rows" && !avx2 ? "openblas" : algo);
  }
  {
    // 64 rows: more than the few-row kernel takes; OpenBLAS runs it instead.
    ops::GemmAlgoScope pin("few_rows");
    run("aten.mm.default", {Val::of(seq({64, 512}, 7, 0.05, 3)), Val::of(w)});
    EXPECT_EQ(ops::lastGemmAlgo(), "openblas");
  }
  // Scopes nest and restore the pin they replaced.
  ops::GemmAlgoScope outer("onednn");
  {
    ops::GemmAlgoScope inner("");
    EXPECT_EQ(ops::pinnedGemmAlgo(), "");
  }
  EXPECT_EQ(ops::pinnedGemmAlgo(), "onednn");
  EXPECT_TRUE(ops::isGemmAlgo("few_rows"));
  EXPECT_FALSE(ops::isGemmAlgo("cublas"));
}

// OpenBLAS's generic cores on a CPU with AVX2 or AVX-512 are replaced by the kernels it can run;
// a core OpenBLAS chose for the CPU itself, or a CPU without either, keeps what it has.
TEST(BlasCore, AGenericCoreOnAModernCpuNamesItsKernels) {
  EXPECT_EQ(ops::betterBlasCore("Prescott", true, true), "SkylakeX");
  EXPECT_EQ(ops::betterBlasCore("Prescott", true, false), "Haswell");
  EXPECT_EQ(ops::betterBlasCore("Sandybridge", true, false), "Haswell");
  EXPECT_EQ(ops::betterBlasCore("Prescott", false, false), "");
  EXPECT_EQ(ops::betterBlasCore("Cooperlake", true, true), "");
  EXPECT_EQ(ops::betterBlasCore("SkylakeX", true, true), "");
  EXPECT_EQ(ops::betterBlasCore("Zen", true, false), "");
  EXPECT_EQ(ops::betterBlasCore("Haswell", true, true), "");
  EXPECT_EQ(ops::betterBlasCore("", true, true), "");
  // This process links OpenBLAS (CMake's BLAS): it names a core.
  EXPECT_FALSE(ops::openBlasCore().empty());
}

}  // namespace
}  // namespace kiln::linalg_test
