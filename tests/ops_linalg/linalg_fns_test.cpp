// Torch-level functions (engine/torch/fns_linalg.cpp): values against PyTorch, and the ATen
// ops each call decomposes into (what AOTAutograd records): torch.matmul's dot/mv/mm/fold/bmm
// paths, F.linear's t + addmm forms, conv batchifying and padding='same', pooling, padding.
#include "tests/ops_linalg/linalg_test_util.h"

#include "engine/python/interpreter.h"
#include "engine/python/parser.h"
#include "engine/torch/install.h"

#include <sstream>

namespace kiln::linalg_test {
namespace {

using Names = std::vector<std::string>;

// Calls a torch-level function eagerly; returns the result and the ATen ops it ran.
std::pair<Val, Names> trace(const std::string& target, std::vector<Val> args, std::vector<std::pair<std::string, Val>> kwargs = {}) {
  RecordingDispatcher d;
  Val r = callFn(d, target, std::move(args), std::move(kwargs));
  return {r, d.names};
}

// Reference batched matmul with broadcasting, in double (numpy's rules).
Tensor refMatmul(const Tensor& a0, const Tensor& b0) {
  Tensor a = a0, b = b0;
  bool va = a.dim() == 1, vb = b.dim() == 1;
  if (va) a = a.view({1, a.sizes()[0]}, {0, a.strides()[0]}, a.offset());
  if (vb) b = b.view({b.sizes()[0], 1}, {b.strides()[0], 0}, b.offset());
  Shape ba(a.sizes().begin(), a.sizes().end() - 2), bb(b.sizes().begin(), b.sizes().end() - 2);
  Shape batch = tensor::broadcastShapes(ba, bb);
  const int64_t n = a.sizes()[a.dim() - 2], k = a.sizes()[a.dim() - 1], p = b.sizes()[b.dim() - 1];
  Shape outS = batch;
  outS.push_back(n);
  outS.push_back(p);
  Tensor out = Tensor::zeros(outS, ir::DType::Float64);
  int64_t nb = 1;
  for (auto s : batch) nb *= s;
  Shape as = tensor::broadcastStrides(a, [&] {
    Shape s = batch;
    s.push_back(n);
    s.push_back(k);
    return s;
  }());
  Shape bs = tensor::broadcastStrides(b, [&] {
    Shape s = batch;
    s.push_back(k);
    s.push_back(p);
    return s;
  }());
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t rem = bi, oa = a.offset() - a0.offset(), ob = b.offset() - b0.offset();
    (void)oa;
    (void)ob;
    int64_t offA = 0, offB = 0;
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
      int64_t idx = rem % batch[d];
      rem /= batch[d];
      offA += idx * as[d];
      offB += idx * bs[d];
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < p; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q)
          s += a.loadAt(offA + i * as[batch.size()] + q * as[batch.size() + 1]) *
               b.loadAt(offB + q * bs[batch.size()] + j * bs[batch.size() + 1]);
        out.storeAt((bi * n + i) * p + j, s);
      }
  }
  Shape finalS = batch;
  if (!va) finalS.push_back(n);
  if (!vb) finalS.push_back(p);
  return out.view(finalS, Tensor::contiguousStrides(finalS), 0);
}

TEST(MatmulFn, PathsAndDecompositions) {
  struct Case {
    Shape a, b;
    Names ops;
  };
  const Case cases[] = {
      {{4}, {4}, {"aten.dot.default"}},
      {{3, 4}, {4}, {"aten.mv.default"}},
      {{4}, {4, 2}, {"aten.unsqueeze.default", "aten.mm.default", "aten.squeeze.dim"}},
      {{3, 4}, {4, 2}, {"aten.mm.default"}},
      // N-D @ 2-D folds the batch into the rows of one mm.
      {{2, 3, 4}, {4, 2}, {"aten.view.default", "aten.mm.default", "aten._unsafe_view.default"}},
      {{2, 3, 4}, {4}, {"aten.view.default", "aten.mv.default", "aten._unsafe_view.default"}},
      // Broadcast batches: expand both, flatten, bmm, view back.
      {{2, 1, 3, 4},
       {3, 4, 2},
       {"aten.expand.default", "aten.clone.default", "aten._unsafe_view.default", "aten.expand.default", "aten.clone.default",
        "aten._unsafe_view.default", "aten.bmm.default", "aten._unsafe_view.default"}},
      // A vector against a batch: the expands only add size-1/unchanged dims, so reshape views.
      {{4},
       {3, 4, 2},
       {"aten.expand.default", "aten.view.default", "aten.expand.default", "aten.view.default", "aten.bmm.default",
        "aten._unsafe_view.default"}},
      {{5, 2, 4},
       {3, 5, 4, 1},
       {"aten.expand.default", "aten.clone.default", "aten._unsafe_view.default", "aten.expand.default", "aten.view.default",
        "aten.bmm.default", "aten._unsafe_view.default"}},
  };
  for (const auto& c : cases) {
    Tensor a = seq(c.a), b = seq(c.b, 5, 0.5, 2);
    auto [r, names] = trace("torch.matmul", {Val::of(a), Val::of(b)});
    EXPECT_EQ(names, c.ops) << tensor::shapeStr(c.a) << " @ " << tensor::shapeStr(c.b);
    expectClose(r.t, refMatmul(a, b));
  }
}

TEST(MatmulFn, MatchesPyTorchValues) {
  // torch.matmul(seq((2,1,3,4)), seq((3,4,2), 5, 0.5, 2))
  expectValues(trace("torch.matmul", {Val::of(seq({2, 1, 3, 4})), Val::of(seq({3, 4, 2}, 5, 0.5, 2))}).first.t, {2, 3, 3, 2},
               {1.0,  0.75, 1.75, -1.25, 0.75,  0.25, 0.25, -1.25, -2.25, 2.25,  0.5,  -1.25, 0.75, -0.75, -1.25, -0.5, 0.25, -0.25,
                -2.0, 1.75, 0.5,  -0.25, -2.25, -0.5, -2.0, 0.5,   0.75,  -1.25, 1.75, 2.25,  1.75, 1.75,  -0.25, 0.25, -0.5, -1.25});
  expectValues(trace("torch.matmul", {Val::of(seq({4})), Val::of(seq({3, 4, 2}, 5, 0.5, 2))}).first.t, {3, 2},
               {1.0, 0.75, 0.25, -1.25, 0.75, -0.75});
  expectValues(trace("torch.matmul", {Val::of(seq({3, 2, 4})), Val::of(seq({4}, 5, 0.5, 2))}).first.t, {3, 2},
               {2.0, -1.75, 1.5, -2.25, 1.0, -1.0});
}

TEST(MatmulFn, AttentionScoresOnTransposedViews) {
  // q: [2, 6, 3, 8] viewed as [2, 3, 6, 8] (transpose(1, 2)); k^T likewise transposed again.
  Tensor qs = seq({2, 6, 3, 8}, 17, 0.125, 8), ks = seq({2, 6, 3, 8}, 13, 0.25, 6);
  Tensor q = qs.view({2, 3, 6, 8}, {144, 8, 24, 1}, 0);
  Tensor kT = ks.view({2, 3, 8, 6}, {144, 8, 1, 24}, 0);
  auto [r, names] = trace("_operator.matmul", {Val::of(q), Val::of(kT)});
  EXPECT_EQ(names, (Names{"aten.expand.default", "aten.clone.default", "aten._unsafe_view.default", "aten.expand.default",
                          "aten.clone.default", "aten._unsafe_view.default", "aten.bmm.default", "aten._unsafe_view.default"}));
  expectClose(r.t, refMatmul(q, kT));
  // A contiguous [2, 3, 6, 8] @ [8, 5] folds into one mm; 2-D @ 3-D does not (bmm).
  EXPECT_EQ(trace("torch.matmul", {Val::of(seq({2, 3, 6, 8})), Val::of(seq({8, 5}))}).second,
            (Names{"aten.view.default", "aten.mm.default", "aten._unsafe_view.default"}));
  auto [r2, n2] = trace("torch.matmul", {Val::of(seq({6, 8})), Val::of(seq({3, 8, 5}, 5, 0.5, 2))});
  EXPECT_EQ(n2.at(n2.size() - 2), "aten.bmm.default");
  expectClose(r2.t, refMatmul(seq({6, 8}), seq({3, 8, 5}, 5, 0.5, 2)));
}

TEST(MatmulFn, Errors) {
  EXPECT_EQ(errorOf([] {
              trace("torch.matmul", {Val::of(Tensor::scalar(1, ir::DType::Float32)), Val::of(seq({3}))});
            }),
            "RuntimeError: both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  EXPECT_EQ(errorOf([] {
              trace("torch.matmul", {Val::of(seq({2, 3, 4})), Val::of(seq({3, 4, 5}))});
            }),
            "RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
  EXPECT_EQ(errorOf([] {
              trace("torch.matmul", {Val::of(seq({32, 100})), Val::of(seq({200, 10}))});
            }),
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x100 and 200x10)");
  EXPECT_EQ(errorOf([] {
              trace("torch.matmul", {Val::of(seq({2, 3, 4})), Val::of(seq({2, 5, 5}))});
            }),
            "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
}

TEST(LinearFn, DecomposesLikeAtLinear) {
  Tensor w = seq({5, 4}, 5, 0.5, 2), b = seq({5}, 3, 0.5, 1);
  auto [r2, n2] = trace("torch._C._nn.linear", {Val::of(seq({3, 4})), Val::of(w), Val::of(b)});
  EXPECT_EQ(n2, (Names{"aten.t.default", "aten.addmm.default"}));
  Tensor ref = refMatmul(seq({3, 4}), w.view({4, 5}, {1, 4}, 0));
  for (int64_t i = 0; i < 15; ++i) EXPECT_NEAR(r2.t.loadAt(i), ref.loadAt(i) + b.loadAt(i % 5), 1e-5);
  // 3-D contiguous input: view to 2-D, addmm, view back. F.linear(seq((2,3,4)), w, b) in PyTorch:
  auto [r3, n3] = trace("torch._C._nn.linear", {Val::of(seq({2, 3, 4})), Val::of(w), Val::of(b)});
  EXPECT_EQ(n3, (Names{"aten.view.default", "aten.t.default", "aten.addmm.default", "aten.view.default"}));
  expectValues(r3.t, {2, 3, 5}, {1.5,   -0.25, -0.75, -1.5,  0.5,   -2.25, -1.25, 1.0,   3.0,  -1.0, 1.0,  -0.5, -0.75, -1.25, 1.0,
                                 -2.75, 0.25,  4.5,   -0.25, -2.25, 0.5,   -0.75, -0.75, -1.0, 1.5,  -1.5, 3.5,  1.0,   -1.75, -1.75});
  // No bias: t + mm. A non-contiguous 3-D input: matmul + add.
  EXPECT_EQ(trace("torch._C._nn.linear", {Val::of(seq({3, 4})), Val::of(w)}).second, (Names{"aten.t.default", "aten.mm.default"}));
  Tensor nc = seq({3, 2, 4}).view({2, 3, 4}, {4, 8, 1}, 0);
  auto [r4, n4] = trace("torch._C._nn.linear", {Val::of(nc), Val::of(w), Val::of(b)});
  EXPECT_EQ(n4.front(), "aten.t.default");
  EXPECT_EQ(n4.back(), "aten.add.Tensor");
  Tensor ref4 = refMatmul(nc, w.view({4, 5}, {1, 4}, 0));
  for (int64_t i = 0; i < 30; ++i) EXPECT_NEAR(r4.t.loadAt(i), ref4.loadAt(i) + b.loadAt(i % 5), 1e-5);
  EXPECT_EQ(errorOf([&] {
              trace("torch._C._nn.linear", {Val::of(seq({32, 100})), Val::of(seq({10, 200})), Val::of(seq({10}))});
            }),
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x100 and 200x10)");
  EXPECT_EQ(errorOf([&] {
              trace("torch._C._nn.linear", {Val::of(Tensor::scalar(1, ir::DType::Float32)), Val::of(w)});
            }),
            "RuntimeError: both arguments to linear need to be at least 1D, but they are 0D and 2D");
}

TEST(ConvFn, BatchifyPaddingModesAndArguments) {
  Tensor w = seq({2, 3, 3, 3}, 5, 0.25, 2);
  // Unbatched input: unsqueeze, convolution, squeeze; ints become [h, w] lists.
  auto [r, names] = trace("torch.conv2d", {Val::of(seq({3, 5, 5})), Val::of(w)}, {{"padding", Val::integer(1)}});
  EXPECT_EQ(names, (Names{"aten.unsqueeze.default", "aten.convolution.default", "aten.squeeze.dim"}));
  EXPECT_EQ(r.t.sizes(), (Shape{2, 5, 5}));
  // padding='same' with an even kernel pads the input asymmetrically first (PyTorch's values).
  auto [rs, ns] =
      trace("torch.conv2d", {Val::of(seq({1, 1, 4, 4})), Val::of(seq({1, 1, 2, 2}, 3, 0.5, 1))}, {{"padding", Val::string("same")}});
  EXPECT_EQ(ns, (Names{"aten.constant_pad_nd.default", "aten.convolution.default"}));
  expectValues(rs.t, {1, 1, 4, 4}, {0.5, 0.25, 1.75, -0.75, -0.5, -0.75, -1.0, 1.0, 0.25, 1.75, -0.25, -0.75, -0.5, -0.75, 0.75, 0.5});
  EXPECT_EQ(trace("torch.conv2d", {Val::of(seq({1, 3, 5, 5})), Val::of(w)}, {{"padding", Val::string("valid")}}).first.t.sizes(),
            (Shape{1, 2, 3, 3}));
  EXPECT_EQ(errorOf([&] {
              trace("torch.conv2d", {Val::of(seq({3, 2})), Val::of(w)});
            }),
            "RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 2]");
  EXPECT_EQ(
      errorOf([&] {
        trace("torch.conv2d", {Val::of(seq({1, 3, 5, 5})), Val::of(w)}, {{"padding", Val::string("same")}, {"stride", Val::integer(2)}});
      }),
      "RuntimeError: padding='same' is not supported for strided convolutions");
  // conv1d and conv_transpose2d go through aten.convolution too.
  EXPECT_EQ(trace("torch.conv1d", {Val::of(seq({2, 3, 7})), Val::of(seq({4, 3, 3}))}, {{"stride", Val::integer(2)}}).first.t.sizes(),
            (Shape{2, 4, 3}));
  EXPECT_EQ(
      trace("torch.conv_transpose2d", {Val::of(seq({1, 4, 3, 3})), Val::of(seq({4, 3, 3, 3}))},
            {{"stride", Val::integer(2)}, {"padding", Val::integer(1)}, {"output_padding", Val::integer(1)}, {"groups", Val::integer(2)}})
          .first.t.sizes(),
      (Shape{1, 6, 6, 6}));
}

TEST(PoolFn, MaxAvgAdaptive) {
  Tensor x = seq({1, 2, 5, 5}, 11, 0.5, 5);
  auto [m, mn] = trace("torch.nn.functional.max_pool2d", {Val::of(x), Val::integer(2)});
  EXPECT_EQ(mn, (Names{"aten.max_pool2d.default"}));
  EXPECT_EQ(m.t.sizes(), (Shape{1, 2, 2, 2}));
  auto [mi, min] = trace("torch.nn.functional.max_pool2d", {Val::of(x), Val::integer(2)},
                         {{"return_indices", Val::boolean(true)}, {"ceil_mode", Val::boolean(true)}});
  EXPECT_EQ(min, (Names{"aten.max_pool2d_with_indices.default"}));
  ASSERT_EQ(mi.kind, Val::Kind::List);
  expectValues(mi.list[1].t, {1, 2, 3, 3}, {6, 8, 9, 10, 18, 19, 21, 23, 24, 6, 7, 4, 16, 18, 14, 21, 23, 24});
  auto [a, an] =
      trace("torch._C._nn.avg_pool2d", {Val::of(x), Val::integer(3)}, {{"stride", Val::integer(2)}, {"padding", Val::integer(1)}});
  EXPECT_EQ(an, (Names{"aten.avg_pool2d.default"}));
  EXPECT_NEAR(a.t.loadAt(0), -0.4444444477558136, 1e-6);
  // adaptive_avg_pool2d to 1x1 is a mean over H and W (as at::adaptive_avg_pool2d does it).
  auto [g, gn] = trace("torch.nn.functional.adaptive_avg_pool2d", {Val::of(x), ints({1, 1})});
  EXPECT_EQ(gn, (Names{"aten.mean.dim"}));
  expectValues(g.t, {1, 2, 1, 1}, {-0.24, -0.06});
  auto [g2, gn2] = trace("torch.nn.functional.adaptive_avg_pool2d", {Val::of(x), Val::listOf({Val::integer(3), Val::none()})});
  EXPECT_EQ(gn2, (Names{"aten._adaptive_avg_pool2d.default"}));
  EXPECT_EQ(g2.t.sizes(), (Shape{1, 2, 3, 5}));
  EXPECT_EQ(errorOf([] {
              trace("torch.nn.functional.adaptive_avg_pool2d", {Val::of(seq({3})), ints({1, 1})});
            }),
            "ValueError: Input dimension should be at least 3");
}

TEST(EmbeddingAndPadFns, ValuesAndErrors) {
  Tensor w = seq({5, 3});
  auto [e, en] = trace("torch.nn.functional.embedding", {Val::of(fromValues({2}, {4, 0}, ir::DType::Int64)), Val::of(w)},
                       {{"padding_idx", Val::integer(-1)}});
  EXPECT_EQ(en, (Names{"aten.embedding.default"}));
  expectValues(e.t, {2, 3}, {1.0, 1.5, -1.5, -1.5, -1.0, -0.5});
  EXPECT_EQ(errorOf([&] {
              trace("torch.nn.functional.embedding", {Val::of(fromValues({1}, {0}, ir::DType::Int64)), Val::of(w)},
                    {{"padding_idx", Val::integer(5)}});
            }),
            "AssertionError: Padding_idx must be within num_embeddings");
  auto [p, pn] = trace("torch.nn.functional.pad", {Val::of(seq({2, 3})), ints({1, 2, 1, 0})}, {{"value", Val::real(9.0)}});
  EXPECT_EQ(pn, (Names{"aten.constant_pad_nd.default"}));
  expectValues(p.t, {3, 6}, {9, 9, 9, 9, 9, 9, 9, -1.5, -1.0, -0.5, 9, 9, 9, 0.0, 0.5, 1.0, 9, 9});
  EXPECT_EQ(errorOf([] {
              trace("torch.nn.functional.pad", {Val::of(seq({2, 3})), ints({1, 2, 3})});
            }),
            "RuntimeError: Padding length must be divisible by 2");
  EXPECT_EQ(
      errorOf([] {
        trace("torch.nn.functional.pad", {Val::of(seq({2, 3})), ints({1, 1, 1, 1, 1, 1})});
      }),
      "RuntimeError: Padding length should be less than or equal to two times the input dimension but got padding length 6 and input of "
      "dimension 2");
  EXPECT_EQ(errorOf([] {
              trace("torch.nn.functional.pad", {Val::of(seq({2, 3})), ints({1, 1})}, {{"mode", Val::string("foo")}});
            }),
            "NotImplementedError: Unrecognised padding mode foo");
  EXPECT_EQ(errorOf([] {
              trace("torch.nn.functional.pad", {Val::of(seq({1, 2, 3})), ints({1, 1})},
                    {{"mode", Val::string("reflect")}, {"value", Val::real(1)}});
            }),
            "RuntimeError: Padding mode \"reflect\" doesn't take in value argument");
}

TEST(MatmulOperator, ScriptsUseTheAtOperator) {
  const std::string src =
      "import torch\n"
      "x = torch.arange(6, dtype=torch.float32).reshape(2, 3)\n"
      "y = torch.arange(12, dtype=torch.float32).reshape(3, 4)\n"
      "print((x @ y).tolist())\n"
      "print(torch.matmul(x, y[:, 0]).tolist(), tuple(x.mm(y).shape))\n";
  std::ostringstream out;
  py::Interpreter in(out);
  kiln::torchapi::install(in);
  py::Module m = py::parseModule(src, "t.py");
  in.runModule(m);
  EXPECT_EQ(out.str(), "[[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]]\n[20.0, 56.0] (2, 4)\n");
}

}  // namespace
}  // namespace kiln::linalg_test
