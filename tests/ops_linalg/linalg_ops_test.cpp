// aten.mm / addmm / bmm / mv / dot / embedding: values, strided and transposed operands (BLAS
// reads them in place or from a copy), integer dtypes, and PyTorch's error messages.
#include "tests/ops_linalg/linalg_test_util.h"

namespace kiln::linalg_test {
namespace {

// Reference product in double, reading any strides.
Tensor refMm(const Tensor& a, const Tensor& b) {
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  Tensor out = Tensor::zeros({m, n}, ir::DType::Float64);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += a.loadAt(i * a.strides()[0] + p * a.strides()[1]) * b.loadAt(p * b.strides()[0] + j * b.strides()[1]);
      out.storeAt(i * n + j, s);
    }
  return out;
}

Tensor transposed(const Tensor& t) { return t.view({t.sizes()[1], t.sizes()[0]}, {t.strides()[1], t.strides()[0]}, t.offset()); }

TEST(LinalgOps, MmHandValues) {
  Tensor a = fromValues({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = fromValues({3, 2}, {7, 8, 9, 10, 11, 12});
  expectValues(run("aten.mm.default", {Val::of(a), Val::of(b)}), {2, 2}, {58, 64, 139, 154});
}

TEST(LinalgOps, MmReadsStridedAndTransposedOperands) {
  Tensor big = seq({6, 10}, 13, 0.25, 6);
  // Row-major with a leading dimension larger than the row (a slice of a wider matrix).
  Tensor rows = big.view({5, 7}, {10, 1}, 10);
  // Column-major (a transposed view), read by BLAS with the transpose flag.
  Tensor colMajor = transposed(seq({7, 5}, 11, 0.5, 5));
  // Every other column: no BLAS layout, copied first.
  Tensor everyOther = big.view({5, 5}, {10, 2}, 1);
  // A broadcast row (stride 0).
  Tensor expanded = big.view({5, 7}, {0, 1}, 3);
  Tensor rhs = seq({7, 4}, 5, 0.5, 2);
  Tensor rhsT = transposed(seq({4, 7}, 5, 0.5, 2));
  for (const Tensor& lhs : {rows, colMajor, expanded})
    for (const Tensor& r : {rhs, rhsT}) expectClose(run("aten.mm.default", {Val::of(lhs), Val::of(r)}), refMm(lhs, r));
  Tensor sq = seq({5, 3}, 7, 0.5, 3);
  expectClose(run("aten.mm.default", {Val::of(everyOther), Val::of(sq)}), refMm(everyOther, sq));
  // Single rows / columns have no meaningful stride in their unit dim.
  // (The column steps by 8, not 10: seven rows of 10 would end past the 60 elements, which the
  // view's bounds check now refuses.)
  Tensor row = big.view({1, 7}, {999, 1}, 2), col = big.view({7, 1}, {8, 77}, 0);
  expectClose(run("aten.mm.default", {Val::of(row), Val::of(col)}), refMm(row, col));
}

TEST(LinalgOps, MmDoubleAndIntegerDtypes) {
  Tensor a = seq({4, 6}, 7, 0.5, 3, ir::DType::Float64), b = seq({6, 3}, 5, 0.25, 2, ir::DType::Float64);
  Tensor r = run("aten.mm.default", {Val::of(a), Val::of(b)});
  EXPECT_EQ(r.dtype(), ir::DType::Float64);
  expectClose(r, refMm(a, b), 1e-12);
  Tensor ia = seq({3, 4}, 7, 1, 3, ir::DType::Int64), ib = transposed(seq({2, 4}, 5, 1, 2, ir::DType::Int64));
  Tensor ri = run("aten.mm.default", {Val::of(ia), Val::of(ib)});
  EXPECT_EQ(ri.dtype(), ir::DType::Int64);
  expectClose(ri, refMm(ia, ib), 0);
  // Exact beyond float precision: int64 products are not routed through doubles.
  Tensor big = fromValues({1, 1}, {0}, ir::DType::Int64);
  big.storeIntAt(0, (int64_t(1) << 40) + 3);
  Tensor two = fromValues({1, 1}, {0}, ir::DType::Int64);
  two.storeIntAt(0, 1 << 20);
  EXPECT_EQ(run("aten.mm.default", {Val::of(big), Val::of(two)}).loadIntAt(0), ((int64_t(1) << 40) + 3) << 20);
  Tensor i32 = seq({2, 2}, 4, 1, 1, ir::DType::Int32);
  expectValues(run("aten.mm.default", {Val::of(i32), Val::of(i32)}), {2, 2}, {1, 0, 1, 4});
}

TEST(LinalgOps, AddmmBetaAlphaAndBroadcastBias) {
  Tensor a = seq({3, 4}), b = seq({4, 2}, 5, 0.5, 2);
  Tensor ref = refMm(a, b);
  Tensor bias = fromValues({2}, {1.0, -2.0});
  Tensor r = run("aten.addmm.default", {Val::of(bias), Val::of(a), Val::of(b), Val::real(0.5), Val::integer(2)});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) EXPECT_NEAR(r.loadAt(i * 2 + j), 0.5 * bias.loadAt(j) + 2 * ref.loadAt(i * 2 + j), 1e-5);
  // A column bias [m, 1] and a 0-dim bias broadcast too.
  Tensor colBias = fromValues({3, 1}, {1, 2, 3});
  Tensor rc = run("aten.addmm.default", {Val::of(colBias), Val::of(a), Val::of(b)});
  for (int64_t i = 0; i < 3; ++i) EXPECT_NEAR(rc.loadAt(i * 2 + 1), double(i + 1) + ref.loadAt(i * 2 + 1), 1e-5);
  Tensor rs = run("aten.addmm.default", {Val::of(Tensor::scalar(10, ir::DType::Float32)), Val::of(a), Val::of(b)});
  EXPECT_NEAR(rs.loadAt(0), 10 + ref.loadAt(0), 1e-5);
  // beta=0 ignores the bias entirely: NaN does not propagate.
  Tensor nanBias = fromValues({2}, {NAN, NAN});
  Tensor rz = run("aten.addmm.default", {Val::of(nanBias), Val::of(a), Val::of(b), Val::integer(0)});
  expectClose(rz, ref);
  // Integer addmm.
  Tensor ia = seq({2, 3}, 5, 1, 2, ir::DType::Int64), ib = seq({3, 2}, 3, 1, 1, ir::DType::Int64);
  Tensor ibias = fromValues({2}, {100, 200}, ir::DType::Int64);
  Tensor ri = run("aten.addmm.default", {Val::of(ibias), Val::of(ia), Val::of(ib), Val::integer(2), Val::integer(3)});
  Tensor iref = refMm(ia, ib);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) EXPECT_EQ(ri.loadIntAt(i * 2 + j), 2 * ibias.loadIntAt(j) + 3 * int64_t(iref.loadAt(i * 2 + j)));
}

TEST(LinalgOps, EmptyInnerDimension) {
  Tensor a = Tensor::empty({3, 0}, ir::DType::Float32), b = Tensor::empty({0, 2}, ir::DType::Float32);
  expectValues(run("aten.mm.default", {Val::of(a), Val::of(b)}), {3, 2}, {0, 0, 0, 0, 0, 0});
  Tensor bias = fromValues({2}, {1, 2});
  expectValues(run("aten.addmm.default", {Val::of(bias), Val::of(a), Val::of(b), Val::integer(3)}), {3, 2}, {3, 6, 3, 6, 3, 6});
  EXPECT_EQ(run("aten.mm.default", {Val::of(Tensor::empty({0, 4}, ir::DType::Float32)), Val::of(seq({4, 2}))}).sizes(), (Shape{0, 2}));
}

TEST(LinalgOps, BmmWithTransposedBatches) {
  Tensor a = seq({3, 4, 5}, 11, 0.25, 5);
  // b[i] = c[i]^T: batch stride 30, inner strides swapped.
  Tensor c = seq({3, 6, 5}, 7, 0.5, 3);
  Tensor b = c.view({3, 5, 6}, {30, 1, 5}, 0);
  Tensor r = run("aten.bmm.default", {Val::of(a), Val::of(b)});
  ASSERT_EQ(r.sizes(), (Shape{3, 4, 6}));
  for (int64_t i = 0; i < 3; ++i) {
    Tensor ai = a.view({4, 5}, {5, 1}, i * 20), bi = b.view({5, 6}, {1, 5}, i * 30);
    expectClose(r.view({4, 6}, {6, 1}, i * 24), refMm(ai, bi));
  }
  // A broadcast batch (stride 0) and integer dtypes.
  Tensor shared = seq({1, 5, 2}, 5, 1, 2, ir::DType::Int64);
  Tensor ia = seq({3, 4, 5}, 7, 1, 3, ir::DType::Int64);
  Tensor sb = shared.view({3, 5, 2}, {0, 2, 1}, 0);
  Tensor ri = run("aten.bmm.default", {Val::of(ia), Val::of(sb)});
  for (int64_t i = 0; i < 3; ++i)
    expectClose(ri.view({4, 2}, {2, 1}, i * 8), refMm(ia.view({4, 5}, {5, 1}, i * 20), shared.view({5, 2}, {2, 1}, 0)), 0);
}

TEST(LinalgOps, MvAndDotOnStridedVectors) {
  Tensor m = seq({3, 4}), big = seq({12}, 5, 0.5, 2);
  Tensor v = big.view({4}, {3}, 1);  // every third element
  Tensor r = run("aten.mv.default", {Val::of(m), Val::of(v)});
  Tensor ref = refMm(m, v.view({4, 1}, {3, 1}, 1));
  expectValues(r, {3}, ref.toDoubles());
  Tensor bcast = big.view({4}, {0}, 2);  // one value broadcast
  expectValues(run("aten.mv.default", {Val::of(transposed(seq({4, 3}))), Val::of(bcast)}), {3},
               refMm(transposed(seq({4, 3})), bcast.view({4, 1}, {0, 1}, 2)).toDoubles());
  Tensor d = run("aten.dot.default", {Val::of(v), Val::of(big.view({4}, {2}, 0))});
  EXPECT_EQ(d.dim(), 0);
  double want = 0;
  for (int i = 0; i < 4; ++i) want += big.loadAt(1 + 3 * i) * big.loadAt(2 * i);
  EXPECT_NEAR(d.loadAt(0), want, 1e-6);
  Tensor iv = seq({5}, 5, 1, 2, ir::DType::Int64);
  EXPECT_EQ(run("aten.dot.default", {Val::of(iv), Val::of(iv)}).loadIntAt(0), 10);
}

TEST(LinalgOps, ErrorsWordedLikePyTorch) {
  Tensor a = seq({32, 100}), b = seq({200, 10});
  EXPECT_EQ(errorOf([&] {
              run("aten.mm.default", {Val::of(a), Val::of(b)});
            }),
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x100 and 200x10)");
  EXPECT_EQ(errorOf([&] { run("aten.mm.default", {Val::of(seq({3})), Val::of(b)}); }), "RuntimeError: self must be a matrix");
  EXPECT_EQ(errorOf([&] { run("aten.mm.default", {Val::of(a), Val::of(seq({100}))}); }), "RuntimeError: mat2 must be a matrix");
  EXPECT_EQ(errorOf([&] {
              run("aten.mm.default", {Val::of(seq({2, 3})), Val::of(seq({3, 4}, 7, 0.5, 3, ir::DType::Float64))});
            }),
            "RuntimeError: expected m1 and m2 to have the same dtype, but got: float != double");
  EXPECT_EQ(errorOf([&] {
              run("aten.bmm.default", {Val::of(seq({2, 3, 4})), Val::of(seq({2, 5, 5}))});
            }),
            "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
  EXPECT_EQ(errorOf([&] {
              run("aten.bmm.default", {Val::of(seq({3, 4})), Val::of(seq({2, 4, 5}))});
            }),
            "RuntimeError: batch1 must be a 3D tensor");
  EXPECT_EQ(errorOf([&] {
              run("aten.addmm.default", {Val::of(seq({5})), Val::of(seq({2, 3})), Val::of(seq({3, 4}))});
            }),
            "RuntimeError: The expanded size of the tensor (4) must match the existing size (5) at non-singleton dimension 1.  "
            "Target sizes: [2, 4].  Tensor sizes: [5]");
  EXPECT_EQ(errorOf([&] {
              run("aten.mv.default", {Val::of(seq({2, 3})), Val::of(seq({4}))});
            }),
            "RuntimeError: size mismatch, got input (2), mat (2x3), vec (4)");
  EXPECT_EQ(errorOf([&] {
              run("aten.dot.default", {Val::of(seq({3})), Val::of(seq({4}))});
            }),
            "RuntimeError: inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 "
            "elements respectively");
  Tensor bools = Tensor::zeros({2, 2}, ir::DType::Bool);
  EXPECT_EQ(errorOf([&] {
              run("aten.mm.default", {Val::of(bools), Val::of(bools)});
            }),
            "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Bool'");
}

TEST(LinalgOps, MetaTypesIncludingSymbolicDims) {
  ops::MetaDispatcher meta;
  ir::TensorType x, y;
  x.sizes = {ir::Dim::sym("s0"), ir::Dim::sym("s1")};
  y.sizes = {ir::Dim::sym("s1"), ir::Dim(4)};
  Val r = meta.call("aten.mm.default", {Val::sym(x), Val::sym(y)});
  EXPECT_EQ(r.type.str(), "f32[s0, 4]");
  ir::TensorType b1, b2;
  b1.sizes = {2, 3, 4};
  b2.sizes = {2, 4, 5};
  EXPECT_EQ(meta.call("aten.bmm.default", {Val::sym(b1), Val::sym(b2)}).type.str(), "f32[2, 3, 5]");
  ir::TensorType bias;
  bias.sizes = {5};
  ir::TensorType m1, m2;
  m1.sizes = {7, 3};
  m2.sizes = {3, 5};
  EXPECT_EQ(meta.call("aten.addmm.default", {Val::sym(bias), Val::sym(m1), Val::sym(m2)}).type.str(), "f32[7, 5]");
  EXPECT_EQ(errorOf([&] {
              meta.call("aten.mm.default", {Val::sym(m1), Val::sym(m1)});
            }),
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (7x3 and 7x3)");
}

TEST(LinalgOps, EmbeddingGathersRows) {
  Tensor w = seq({5, 3});
  Tensor idx = fromValues({2, 2}, {4, 0, 2, 2}, ir::DType::Int64);
  // Reference from PyTorch: F.embedding(tensor([[4, 0], [2, 2]]), w)
  expectValues(run("aten.embedding.default", {Val::of(w), Val::of(idx)}), {2, 2, 3},
               {1.0, 1.5, -1.5, -1.5, -1.0, -0.5, 1.5, -1.5, -1.0, 1.5, -1.5, -1.0});
  // int32 indices, a transposed (non-contiguous) weight.
  Tensor wt = transposed(seq({3, 5}));
  Tensor i32 = fromValues({3}, {1, 4, 1}, ir::DType::Int32);
  Tensor r = run("aten.embedding.default", {Val::of(wt), Val::of(i32), Val::integer(-1)});
  ASSERT_EQ(r.sizes(), (Shape{3, 3}));
  for (int64_t j = 0; j < 3; ++j) {
    EXPECT_EQ(r.loadAt(j), wt.loadAt(1 * wt.strides()[0] + j * wt.strides()[1]));
    EXPECT_EQ(r.loadAt(3 + j), wt.loadAt(4 * wt.strides()[0] + j * wt.strides()[1]));
  }
  EXPECT_EQ(errorOf([&] {
              run("aten.embedding.default", {Val::of(w), Val::of(fromValues({1}, {5}, ir::DType::Int64))});
            }),
            "IndexError: index out of range in self");
  EXPECT_EQ(errorOf([&] {
              run("aten.embedding.default", {Val::of(w), Val::of(fromValues({1}, {-1}, ir::DType::Int64))});
            }),
            "IndexError: index out of range in self");
  EXPECT_EQ(errorOf([&] {
              run("aten.embedding.default", {Val::of(w), Val::of(fromValues({1}, {1}))});
            }),
            "RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            "torch.FloatTensor instead (while checking arguments for embedding)");
}

}  // namespace
}  // namespace kiln::linalg_test
