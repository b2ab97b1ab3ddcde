// The ATen-level view, index, reduction and normalization ops (engine/ops/view_ops.cpp,
// index_ops.cpp, reduction_ops.cpp, norm_ops.cpp): views share storage with real strides,
// meta types agree with eager results, decompositions agree with the eager kernels, reductions
// agree with reference loops on non-contiguous inputs, and errors are worded like PyTorch's.
#include "engine/ops/op_table.h"
#include "engine/torch/torch_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace kiln::ops {
namespace {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

Tensor seq(const Shape& shape, double scale = 0.25, double off = 3.0, ir::DType dt = ir::DType::Float32) {
  Tensor t = Tensor::empty(shape, dt);
  for (int64_t i = 0; i < t.numel(); ++i) t.storeAt(i, (double((i * 7) % 11) - off) * scale);
  return t;
}
Val T(const Tensor& t) { return Val::of(t); }
Val I(int64_t v) { return Val::integer(v); }
Val B(bool v) { return Val::boolean(v); }
Val L(std::vector<int64_t> xs) {
  std::vector<Val> v;
  for (auto x : xs) v.push_back(I(x));
  return Val::listOf(v);
}
Tensor eager(const std::string& name, const std::vector<Val>& args) {
  EagerDispatcher d;
  return d.call(name, args).t;
}
std::vector<Val> eagerMulti(const std::string& name, const std::vector<Val>& args) {
  EagerDispatcher d;
  return d.call(name, args).list;
}
// Runs the op's decomposition eagerly (the ops it decomposes into, not its own kernel).
Val decomposed(const std::string& name, const std::vector<Val>& args) {
  EagerDispatcher d;
  return op(name).decompose(d, args);
}
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const TorchError& e) { return e.type() + ": " + e.what(); }
  return "no error";
}
void expectClose(const Tensor& got, const Tensor& want, double tol = 1e-6) {
  ASSERT_EQ(got.sizes(), want.sizes());
  auto g = got.toDoubles(), w = want.toDoubles();
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) EXPECT_TRUE(std::isnan(g[i])) << i;
    else if (std::isinf(w[i])) EXPECT_EQ(g[i], w[i]) << i;
    else EXPECT_NEAR(g[i], w[i], tol * std::max(1.0, std::fabs(w[i]))) << i;
  }
}
// Meta must agree with the eager result's sizes and dtype.
void expectMetaMatches(const std::string& name, const std::vector<Val>& args) {
  MetaDispatcher m;
  std::vector<Val> symArgs;
  for (const auto& a : args) {
    if (a.kind == Val::Kind::Tensor) symArgs.push_back(Val::sym(a.t.type()));
    else if (a.kind == Val::Kind::List) {
      std::vector<Val> items;
      for (const auto& x : a.list) items.push_back(x.kind == Val::Kind::Tensor ? Val::sym(x.t.type()) : x);
      symArgs.push_back(Val::listOf(items));
    } else symArgs.push_back(a);
  }
  Val mr = m.call(name, symArgs);
  Val er = EagerDispatcher().call(name, args);
  std::vector<Val> ms = mr.kind == Val::Kind::List ? mr.list : std::vector<Val>{mr};
  std::vector<Val> es = er.kind == Val::Kind::List ? er.list : std::vector<Val>{er};
  ASSERT_EQ(ms.size(), es.size()) << name;
  for (size_t i = 0; i < ms.size(); ++i) {
    ir::TensorType mt = ms[i].tensorType(), et = es[i].t.type();
    EXPECT_EQ(mt.dtype, et.dtype) << name << " result " << i;
    ASSERT_EQ(mt.sizes.size(), et.sizes.size()) << name << " result " << i;
    for (size_t k = 0; k < mt.sizes.size(); ++k) EXPECT_EQ(mt.sizes[k].value, et.sizes[k].value) << name << " result " << i;
  }
}

TEST(ShapeOps, ViewsShareStorageWithRealStrides) {
  Tensor x = seq({2, 3, 4});
  Tensor p = eager("aten.permute.default", {T(x), L({2, 0, 1})});
  EXPECT_EQ(p.storage(), x.storage());
  EXPECT_EQ(p.sizes(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Shape{1, 12, 4}));
  Tensor tr = eager("aten.transpose.int", {T(x), I(0), I(-1)});
  EXPECT_EQ(tr.strides(), (Shape{1, 4, 12}));
  Tensor e = eager("aten.expand.default", {T(eager("aten.unsqueeze.default", {T(x), I(0)})), L({5, -1, -1, -1})});
  EXPECT_EQ(e.strides(), (Shape{0, 12, 4, 1}));
  Tensor s = eager("aten.slice.Tensor", {T(x), I(2), I(1), I(4), I(2)});
  EXPECT_EQ(s.sizes(), (Shape{2, 3, 2}));
  EXPECT_EQ(s.strides(), (Shape{12, 4, 2}));
  EXPECT_EQ(s.offset(), 1);
  Tensor sel = eager("aten.select.int", {T(x), I(1), I(-1)});
  EXPECT_EQ(sel.sizes(), (Shape{2, 4}));
  EXPECT_EQ(sel.offset(), 8);
  // A write through a view is visible in the base.
  sel.storeAt(sel.strides()[0] * 1 + 3, 42.0);
  EXPECT_EQ(x.loadAt(12 + 8 + 3), 42.0);
  Tensor sq = eager("aten.squeeze.dims", {T(eager("aten.unsqueeze.default", {T(x), I(1)})), L({1, 0})});
  EXPECT_EQ(sq.sizes(), (Shape{2, 3, 4}));
  EXPECT_EQ(eager("aten.squeeze.default", {T(Tensor::zeros({1, 3, 1}, ir::DType::Float32))}).sizes(), (Shape{3}));
  EXPECT_EQ(eager("aten.squeeze.dim", {T(Tensor::zeros({1, 3, 1}, ir::DType::Float32)), I(1)}).sizes(), (Shape{1, 3, 1}));
  Tensor a = eager("aten.alias.default", {T(x)});
  EXPECT_EQ(a.storage(), x.storage());
  Tensor t2 = eager("aten.t.default", {T(seq({3, 5}))});
  EXPECT_EQ(t2.strides(), (Shape{1, 5}));
}

TEST(ShapeOps, ViewOfNonContiguousInputs) {
  Tensor x = seq({4, 6});
  // A transposed tensor can be viewed when merged dims stay contiguous chunks...
  Tensor tr = eager("aten.permute.default", {T(x), L({1, 0})});
  Tensor v = eager("aten.view.default", {T(tr), L({2, 3, 4})});
  EXPECT_EQ(v.strides(), (Shape{3, 1, 6}));
  EXPECT_EQ(v.storage(), x.storage());
  // ... but not when a new dim spans two of them.
  EXPECT_EQ(errorOf([&] {
              eager("aten.view.default", {T(tr), L({24})});
            }),
            "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
            "contiguous subspaces). Use .reshape(...) instead.");
  // A slice along the last dim keeps its stride; viewing the outer dims is fine.
  Tensor s = eager("aten.slice.Tensor", {T(seq({2, 3, 8})), I(2), I(0), I(4), I(1)});
  Tensor sv = eager("aten.view.default", {T(s), L({6, 4})});
  EXPECT_EQ(sv.strides(), (Shape{8, 1}));
  // _unsafe_view copies when it has to.
  Tensor u = eager("aten._unsafe_view.default", {T(tr), L({24})});
  EXPECT_EQ(u.toDoubles(), tr.contiguous().toDoubles());
  // Meta types carry the strides of non-contiguous views.
  MetaDispatcher m;
  Val mp = m.call("aten.permute.default", {Val::sym(x.type()), L({1, 0})});
  ASSERT_EQ(mp.type.strides.size(), 2u);
  EXPECT_EQ(mp.type.strides[0].value, 1);
  EXPECT_EQ(mp.type.strides[1].value, 6);
  EXPECT_EQ(errorOf([&] { m.call("aten.view.default", {mp, L({24})}); }).substr(0, 40), "RuntimeError: view size is not compatibl");
}

TEST(ShapeOps, ViewErrors) {
  Tensor x = seq({2, 3});
  EXPECT_EQ(errorOf([&] {
              eager("aten.view.default", {T(x), L({4, -1})});
            }),
            "RuntimeError: shape '[4, -1]' is invalid for input of size 6");
  EXPECT_EQ(errorOf([&] {
              eager("aten.expand.default", {T(x), L({4, 3, 2})});
            }),
            "RuntimeError: The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 2.  "
            "Target sizes: [4, 3, 2].  Tensor sizes: [2, 3]");
  EXPECT_EQ(errorOf([&] {
              eager("aten.select.int", {T(x), I(0), I(2)});
            }),
            "IndexError: select(): index 2 out of range for tensor of size [2, 3] at dimension 0");
  EXPECT_EQ(errorOf([&] {
              eager("aten.transpose.int", {T(x), I(0), I(2)});
            }),
            "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(errorOf([&] { eager("aten.permute.default", {T(x), L({0, 0})}); }), "RuntimeError: permute(): duplicate dims are not allowed.");
}

TEST(ShapeOps, TransposeDecomposesToPermute) {
  Tensor x = seq({2, 3, 4});
  Val d = decomposed("aten.transpose.int", {T(x), I(0), I(2)});
  Tensor e = eager("aten.transpose.int", {T(x), I(0), I(2)});
  EXPECT_EQ(d.t.sizes(), e.sizes());
  EXPECT_EQ(d.t.strides(), e.strides());
}

TEST(ShapeOps, CatAndIndex) {
  Tensor a = seq({2, 3}), b = seq({2, 2}, 1.0, 0.0);
  Tensor bt = eager("aten.permute.default", {T(seq({2, 2}, 1.0, 0.0)), L({1, 0})});
  Tensor c = eager("aten.cat.default", {Val::listOf({T(a), T(bt)}), I(1)});
  EXPECT_EQ(c.sizes(), (Shape{2, 5}));
  auto cv = c.toDoubles(), av = a.toDoubles(), bv = bt.toDoubles();
  EXPECT_EQ(cv[0], av[0]);
  EXPECT_EQ(cv[3], bv[0]);
  EXPECT_EQ(cv[4], bv[1]);
  EXPECT_EQ(cv[8], bv[2]);
  expectMetaMatches("aten.cat.default", {Val::listOf({T(a), T(bt)}), I(-1)});
  EXPECT_EQ(
      errorOf([&] {
        eager("aten.cat.default", {Val::listOf({T(a), T(b)}), I(0)});
      }),
      "RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for tensor number 1 in the list.");
  // index.Tensor with None for a dim taken whole, on a transposed input.
  Tensor x = eager("aten.permute.default", {T(seq({4, 3})), L({1, 0})});  // [3, 4]
  Tensor idx = Tensor::empty({2}, ir::DType::Int64);
  idx.storeIntAt(0, 3);
  idx.storeIntAt(1, -4);
  Tensor r = eager("aten.index.Tensor", {T(x), Val::listOf({Val::none(), T(idx)})});
  ASSERT_EQ(r.sizes(), (Shape{3, 2}));
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.loadAt(i * 2), x.loadAt(i * x.strides()[0] + 3 * x.strides()[1]));
    EXPECT_EQ(r.loadAt(i * 2 + 1), x.loadAt(i * x.strides()[0]));
  }
  idx.storeIntAt(0, 4);
  EXPECT_EQ(errorOf([&] {
              eager("aten.index.Tensor", {T(x), Val::listOf({Val::none(), T(idx)})});
            }),
            "IndexError: index 4 is out of bounds for dimension 1 with size 4");
  Tensor put = eager("aten.index_put.default", {T(x), Val::listOf({T(Tensor::full({3}, 1, ir::DType::Bool))}), Val::real(7.0), B(false)});
  for (double v : put.toDoubles()) EXPECT_EQ(v, 7.0);
  EXPECT_NE(x.loadAt(0), 7.0);  // functional: the input is untouched
}

TEST(ShapeOps, MaskedFillAndTriangles) {
  Tensor x = seq({3, 3});
  Tensor m = Tensor::zeros({3}, ir::DType::Bool);
  m.storeIntAt(1, 1);
  Tensor r = eager("aten.masked_fill.Scalar", {T(x), T(m), Val::real(-INFINITY)});
  Val dr = decomposed("aten.masked_fill.Scalar", {T(x), T(m), Val::real(-INFINITY)});
  expectClose(dr.t, r);
  EXPECT_TRUE(std::isinf(r.loadAt(1)) && std::isinf(r.loadAt(4)) && !std::isinf(r.loadAt(0)));
  EXPECT_EQ(errorOf([&] {
              eager("aten.masked_fill.Scalar", {T(x), T(x), Val::real(0)});
            }),
            "RuntimeError: masked_fill_ only supports boolean masks, but got mask with dtype float32");
  Tensor tl = eager("aten.tril.default", {T(x), I(0)});
  Tensor tu = eager("aten.triu.default", {T(x), I(1)});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(tl.loadAt(i * 3 + j), j <= i ? x.loadAt(i * 3 + j) : 0.0);
      EXPECT_EQ(tu.loadAt(i * 3 + j), j >= i + 1 ? x.loadAt(i * 3 + j) : 0.0);
    }
  Tensor nz = eager("aten.nonzero.default", {T(tl)});
  EXPECT_EQ(nz.dtype(), ir::DType::Int64);
  EXPECT_EQ(nz.sizes()[1], 2);
}

// Reference reduction over `dim` of a [A, B, C] tensor by plain loops.
Tensor refReduce(const Tensor& x, int64_t dim, const std::function<double(const std::vector<double>&)>& f) {
  Shape out = x.sizes();
  out.erase(out.begin() + dim);
  Tensor r = Tensor::empty(out, ir::DType::Float64);
  int64_t n = x.sizes()[dim], k = 0;
  Shape s = x.sizes();
  for (int64_t a = 0; a < s[0]; ++a)
    for (int64_t b = 0; b < s[1]; ++b)
      for (int64_t c = 0; c < s[2]; ++c) {
        int64_t idx[3] = {a, b, c};
        if (idx[dim] != 0) continue;
        std::vector<double> vals;
        for (int64_t i = 0; i < n; ++i) {
          idx[dim] = i;
          vals.push_back(x.loadAt(idx[0] * x.strides()[0] + idx[1] * x.strides()[1] + idx[2] * x.strides()[2]));
        }
        r.storeAt(k++, f(vals));
      }
  return r;
}

TEST(ShapeOps, ReductionsMatchReferenceLoopsOnNonContiguousInputs) {
  Tensor base = seq({4, 3, 5});
  Tensor x = eager("aten.permute.default", {T(base), L({2, 0, 1})});  // [5, 4, 3], non-contiguous
  auto sum = [](const std::vector<double>& v) {
    double s = 0;
    for (double d : v) s += d;
    return s;
  };
  auto mean = [&](const std::vector<double>& v) { return sum(v) / double(v.size()); };
  auto var = [&](const std::vector<double>& v) {
    double m = mean(v), s = 0;
    for (double d : v) s += (d - m) * (d - m);
    return s / double(v.size() - 1);
  };
  auto mx = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  auto argmx = [](const std::vector<double>& v) { return double(std::max_element(v.begin(), v.end()) - v.begin()); };
  auto lse = [](const std::vector<double>& v) {
    double s = 0;
    for (double d : v) s += std::exp(d);
    return std::log(s);
  };
  auto norm = [](const std::vector<double>& v) {
    double s = 0;
    for (double d : v) s += d * d;
    return std::sqrt(s);
  };
  for (int64_t dim = 0; dim < 3; ++dim) {
    expectClose(eager("aten.sum.dim_IntList", {T(x), L({dim}), B(false)}), refReduce(x, dim, sum));
    expectClose(eager("aten.mean.dim", {T(x), L({dim}), B(false)}), refReduce(x, dim, mean));
    expectClose(eager("aten.var.correction", {T(x), L({dim}), I(1), B(false)}), refReduce(x, dim, var));
    expectClose(eager("aten.amax.default", {T(x), L({dim}), B(false)}), refReduce(x, dim, mx));
    expectClose(eager("aten.logsumexp.default", {T(x), L({dim}), B(false)}), refReduce(x, dim, lse));
    expectClose(eager("aten.linalg_vector_norm.default", {T(x), Val::real(2), L({dim}), B(false), Val::none()}), refReduce(x, dim, norm));
    auto mm = eagerMulti("aten.max.dim", {T(x), I(dim), B(false)});
    expectClose(mm[0].t, refReduce(x, dim, mx));
    EXPECT_EQ(mm[1].t.dtype(), ir::DType::Int64);
    expectClose(mm[1].t, refReduce(x, dim, argmx));
    expectClose(eager("aten.argmax.default", {T(x), I(dim), B(false)}), refReduce(x, dim, argmx));
    expectMetaMatches("aten.max.dim", {T(x), I(dim), B(true)});
    expectMetaMatches("aten.var_mean.correction", {T(x), L({dim}), I(0), B(true)});
  }
  expectMetaMatches("aten.sum.dim_IntList", {T(x), L({0, 2}), B(true)});
  expectMetaMatches("aten.argmax.default", {T(x), Val::none(), B(false)});
  expectMetaMatches("aten.any.dims", {T(x), L({1, 2}), B(false)});
}

TEST(ShapeOps, FloatSumsAreAccurate) {
  // 1e6 float32 values of 0.1: a naive float accumulator drifts by ~1%, PyTorch does not.
  Tensor x = Tensor::full({1000000}, 0.1, ir::DType::Float32);
  double got = eager("aten.sum.default", {T(x)}).loadAt(0);
  double want = 1000000.0 * double(0.1f);
  EXPECT_NEAR(got, want, want * 1e-6);
  EXPECT_NEAR(eager("aten.mean.default", {T(x)}).loadAt(0), double(0.1f), 1e-7);
}

TEST(ShapeOps, ReductionDtypesAndErrors) {
  Tensor i = Tensor::full({3}, 2, ir::DType::Int32);
  EXPECT_EQ(eager("aten.sum.default", {T(i)}).dtype(), ir::DType::Int64);
  EXPECT_EQ(eager("aten.prod.default", {T(i)}).loadIntAt(0), 8);
  EXPECT_EQ(eager("aten.amax.default", {T(i), L({}), B(false)}).dtype(), ir::DType::Int32);
  EXPECT_EQ(eager("aten.any.default", {T(i)}).dtype(), ir::DType::Bool);
  EXPECT_EQ(errorOf([&] { eager("aten.mean.default", {T(i)}); }),
            "RuntimeError: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Int");
  EXPECT_EQ(errorOf([&] {
              eager("aten.var.correction", {T(i), Val::none(), Val::none(), B(false)});
            }),
            "RuntimeError: std and var only support floating point and complex dtypes, got Int");
  EXPECT_EQ(errorOf([&] {
              eager("aten.amax.default", {T(Tensor::zeros({2, 0}, ir::DType::Float32)), L({1}), B(false)});
            }),
            "IndexError: amax(): Expected reduction dim 1 to have non-zero size.");
  // NaN propagates through max and is what argmax picks.
  Tensor n = seq({4});
  n.storeAt(2, NAN);
  EXPECT_TRUE(std::isnan(eager("aten.max.default", {T(n)}).loadAt(0)));
  EXPECT_EQ(eager("aten.argmax.default", {T(n), Val::none(), B(false)}).loadIntAt(0), 2);
}

TEST(ShapeOps, SoftmaxDecompositionMatchesKernel) {
  Tensor x = eager("aten.permute.default", {T(seq({3, 5}, 1.5)), L({1, 0})});
  for (const char* name : {"aten._softmax.default", "aten._log_softmax.default"})
    for (int64_t dim : {0, 1, -1}) {
      Tensor k = eager(name, {T(x), I(dim), B(false)});
      expectClose(decomposed(name, {T(x), I(dim), B(false)}).t, k, 1e-6);
      expectMetaMatches(name, {T(x), I(dim), B(false)});
    }
  // Rows sum to one.
  Tensor s = eager("aten._softmax.default", {T(x), I(1), B(false)});
  for (int64_t r = 0; r < 5; ++r) {
    double t = 0;
    for (int64_t c = 0; c < 3; ++c) t += s.loadAt(r * 3 + c);
    EXPECT_NEAR(t, 1.0, 1e-6);
  }
}

TEST(ShapeOps, LayerNormDecompositionMatchesKernel) {
  Tensor x = seq({2, 3, 4}, 0.7);
  Tensor w = seq({4}, 0.5, 1.0), b = seq({4}, 0.1, 5.0);
  std::vector<Val> args = {T(x), L({4}), T(w), T(b), Val::real(1e-5)};
  auto k = eagerMulti("aten.native_layer_norm.default", args);
  Val d = decomposed("aten.native_layer_norm.default", args);
  for (int i = 0; i < 3; ++i) expectClose(d.list.at(i).t, k[i].t, 1e-5);
  EXPECT_EQ(k[1].t.sizes(), (Shape{2, 3, 1}));
  expectMetaMatches("aten.native_layer_norm.default", args);
  // Over two dims without affine parameters, on a transposed input.
  Tensor xt = eager("aten.permute.default", {T(x), L({0, 2, 1})});
  std::vector<Val> args2 = {T(xt), L({4, 3}), Val::none(), Val::none(), Val::real(1e-5)};
  auto k2 = eagerMulti("aten.native_layer_norm.default", args2);
  Val d2 = decomposed("aten.native_layer_norm.default", args2);
  expectClose(d2.list.at(0).t, k2[0].t, 1e-5);
  EXPECT_EQ(errorOf([&] {
              eagerMulti("aten.native_layer_norm.default", {T(x), L({3}), Val::none(), Val::none(), Val::real(1e-5)});
            }),
            "RuntimeError: Given normalized_shape=[3,], expected input with shape [*, 3], but got input of size[2, 3, 4]");
}

TEST(ShapeOps, BatchNormEvalAndTraining) {
  Tensor x = seq({4, 3, 2}, 0.3);
  Tensor rm = seq({3}, 0.2), rv = Tensor::full({3}, 1.5, ir::DType::Float32), w = seq({3}, 0.5, 1.0), b = seq({3}, 0.1);
  std::vector<Val> eval = {T(x), T(w), T(b), T(rm), T(rv), Val::real(0.1), Val::real(1e-5)};
  auto k = eagerMulti("aten._native_batch_norm_legit_no_training.default", eval);
  Val d = decomposed("aten._native_batch_norm_legit_no_training.default", eval);
  expectClose(d.list.at(0).t, k[0].t, 1e-5);
  // Training: batch statistics, running stats updated in place with the unbiased variance.
  Tensor rm2 = rm.clone(), rv2 = rv.clone();
  auto tr =
      eagerMulti("aten._native_batch_norm_legit.default", {T(x), T(w), T(b), T(rm2), T(rv2), B(true), Val::real(0.1), Val::real(1e-5)});
  auto fn = eagerMulti("aten._native_batch_norm_legit_functional.default",
                       {T(x), T(w), T(b), T(rm), T(rv), B(true), Val::real(0.1), Val::real(1e-5)});
  expectClose(tr[0].t, fn[0].t);
  expectClose(rm2, fn[3].t);
  expectClose(rv2, fn[4].t);
  for (int64_t c = 0; c < 3; ++c) {
    std::vector<double> v;
    for (int64_t n = 0; n < 4; ++n)
      for (int64_t s = 0; s < 2; ++s) v.push_back(x.loadAt(n * 6 + c * 2 + s));
    double m = 0, ss = 0;
    for (double e : v) m += e;
    m /= 8;
    for (double e : v) ss += (e - m) * (e - m);
    EXPECT_NEAR(rm2.loadAt(c), 0.9 * rm.loadAt(c) + 0.1 * m, 1e-6);
    EXPECT_NEAR(rv2.loadAt(c), 0.9 * 1.5 + 0.1 * ss / 7, 1e-6);
    EXPECT_NEAR(tr[1].t.loadAt(c), m, 1e-6);
    EXPECT_NEAR(tr[2].t.loadAt(c), 1 / std::sqrt(ss / 8 + 1e-5), 1e-4);
  }
}

TEST(ShapeOps, PointwiseDecompositionsMatchKernels) {
  Tensor x = eager("aten.permute.default", {T(seq({3, 4}, 0.9)), L({1, 0})});
  for (const char* approx : {"none", "tanh"}) {
    std::vector<Val> a = {T(x), Val::string(approx)};
    expectClose(decomposed("aten.gelu.default", a).t, eager("aten.gelu.default", a), 1e-6);
  }
  Tensor c = eager("aten.clamp.default", {T(x), Val::real(-0.5), Val::real(0.75)});
  for (double v : c.toDoubles()) EXPECT_TRUE(v >= -0.5 && v <= 0.75);
  Tensor ci = eager("aten.clamp.default", {T(seq({5}, 1.0, 2.0, ir::DType::Int64)), Val::real(0.5), Val::none()});
  EXPECT_EQ(ci.dtype(), ir::DType::Float32);
  EXPECT_EQ(errorOf([&] {
              eager("aten.clamp.default", {T(x), Val::none(), Val::none()});
            }),
            "RuntimeError: torch.clamp: At least one of 'min' or 'max' must not be None");
  Tensor p = eager("aten.pow.Tensor_Scalar", {T(seq({4}, 1.0, 2.0, ir::DType::Int64)), I(3)});
  EXPECT_EQ(p.dtype(), ir::DType::Int64);
  EXPECT_EQ(p.toDoubles(), (std::vector<double>{-8, 125, 1, 512}));
  Tensor pf = eager("aten.pow.Tensor_Scalar", {T(seq({4}, 1.0, 2.0, ir::DType::Int64)), Val::real(0.5)});
  EXPECT_EQ(pf.dtype(), ir::DType::Float32);
}

TEST(ShapeOps, NllLoss) {
  Tensor logp = eager("aten._log_softmax.default", {T(seq({3, 4}, 0.8)), I(1), B(false)});
  Tensor tg = Tensor::empty({3}, ir::DType::Int64);
  tg.storeIntAt(0, 1);
  tg.storeIntAt(1, -100);
  tg.storeIntAt(2, 3);
  auto r = eagerMulti("aten.nll_loss_forward.default", {T(logp), T(tg), Val::none(), I(1), I(-100)});
  EXPECT_NEAR(r[0].t.loadAt(0), -(logp.loadAt(1) + logp.loadAt(11)) / 2, 1e-6);
  EXPECT_EQ(r[1].t.loadAt(0), 2.0);
  auto none = eagerMulti("aten.nll_loss_forward.default", {T(logp), T(tg), Val::none(), I(0), I(-100)});
  EXPECT_EQ(none[0].t.sizes(), (Shape{3}));
  EXPECT_EQ(none[0].t.loadAt(1), 0.0);
  tg.storeIntAt(1, 4);
  EXPECT_EQ(errorOf([&] {
              eagerMulti("aten.nll_loss_forward.default", {T(logp), T(tg), Val::none(), I(1), I(-100)});
            }),
            "IndexError: Target 4 is out of bounds.");
}

// Graph-recording dispatchers have no multi-output nodes: the torch-level functions then use
// single-output decompositions, which must give the same values.
struct SingleOutputEager : EagerDispatcher {
  bool multiOutput() const override { return false; }
};

TEST(ShapeOps, SingleOutputPathsMatchMultiOutputOps) {
  Tensor x = seq({4, 5}, 0.6);
  Tensor tg = Tensor::empty({4}, ir::DType::Int64);
  for (int64_t i = 0; i < 4; ++i) tg.storeIntAt(i, (i * 3) % 5);
  tg.storeIntAt(2, -100);
  Tensor w = seq({5}, 0.1, -9.0);
  auto run = [](Dispatcher& d, const std::string& fn, std::vector<Val> args, std::vector<std::pair<std::string, Val>> kw = {}) {
    const torchapi::TorchFn* f = torchapi::findTorchFn(fn, ir::NodeKind::CallFunction);
    EXPECT_NE(f, nullptr) << fn;
    torchapi::TArgs a;
    a.args = std::move(args);
    a.kwargs = std::move(kw);
    return f->impl(d, a);
  };
  EagerDispatcher multi;
  SingleOutputEager single;
  auto both = [&](const std::string& fn, std::vector<Val> args, std::vector<std::pair<std::string, Val>> kw = {}) {
    Val m = run(multi, fn, args, kw), s = run(single, fn, args, kw);
    std::vector<Val> ms = m.kind == Val::Kind::List ? m.list : std::vector<Val>{m};
    std::vector<Val> ss = s.kind == Val::Kind::List ? s.list : std::vector<Val>{s};
    ASSERT_EQ(ms.size(), ss.size()) << fn;
    for (size_t i = 0; i < ms.size(); ++i) expectClose(ss[i].t, ms[i].t, 1e-5);
  };
  both("torch.nn.functional.layer_norm", {T(x), L({5}), T(w), T(seq({5}, 0.2))});
  both("torch.nn.functional.nll_loss", {T(x), T(tg)});
  both("torch.nn.functional.nll_loss", {T(x), T(tg)}, {{"weight", T(w)}, {"reduction", Val::string("sum")}});
  both("torch.nn.functional.nll_loss", {T(x), T(tg)}, {{"reduction", Val::string("none")}});
  both("torch.nn.functional.cross_entropy", {T(x), T(tg)}, {{"weight", T(w)}});
  both("torch.max", {T(x), I(1)});
  both("torch.min", {T(x), I(0)}, {{"keepdim", B(true)}});
  both("torch.var_mean", {T(x), I(1)});
  Tensor y = seq({3, 5, 2}, 0.3);
  both("torch.nn.functional.batch_norm", {T(y), T(seq({5}, 0.1)), T(Tensor::full({5}, 2.0, ir::DType::Float32)), T(w)});
  // Training: the decomposition's running-stat updates (input mutations) equal the eager op's.
  Tensor rm1 = seq({5}, 0.1), rv1 = Tensor::full({5}, 2.0, ir::DType::Float32);
  Tensor rm2 = rm1.clone(), rv2 = rv1.clone();
  Val m = run(multi, "torch.nn.functional.batch_norm", {T(y), T(rm1), T(rv1), T(w), Val::none(), B(true)});
  Val s = run(single, "torch.nn.functional.batch_norm", {T(y), T(rm2), T(rv2), T(w), Val::none(), B(true)});
  expectClose(s.t, m.t, 1e-5);
  expectClose(rm2, rm1, 1e-6);
  expectClose(rv2, rv1, 1e-6);
  EXPECT_GT(std::abs(rm1.loadAt(0) - seq({5}, 0.1).loadAt(0)), 1e-6);  // the stats did move
}

}  // namespace
}  // namespace kiln::ops
