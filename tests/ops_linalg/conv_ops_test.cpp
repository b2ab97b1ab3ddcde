// aten.convolution (groups, stride, padding, dilation, 1-D, transposed), max/avg/adaptive
// pooling and constant_pad_nd against PyTorch's values (computed once with torch and embedded)
// and against direct reference loops; errors worded like PyTorch's.
#include "tests/ops_linalg/linalg_test_util.h"

namespace kiln::linalg_test {
namespace {

Tensor conv(const Tensor& x, const Tensor& w, const Val& bias, const Shape& stride, const Shape& pad, const Shape& dil, int64_t groups,
            bool transposed = false, const Shape& outPad = {0, 0}) {
  return run("aten.convolution.default", {Val::of(x), Val::of(w), bias, ints(stride), ints(pad), ints(dil), Val::boolean(transposed),
                                          ints(outPad), Val::integer(groups)});
}

// Direct 2-D convolution in double: the definition, one output element at a time.
Tensor refConv(const Tensor& x, const Tensor& w, const Tensor* bias, Shape s, Shape p, Shape d, int64_t G) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1], H = x.sizes()[2], W = x.sizes()[3];
  const int64_t O = w.sizes()[0], Cg = w.sizes()[1], KH = w.sizes()[2], KW = w.sizes()[3], Og = O / G;
  const int64_t OH = (H + 2 * p[0] - d[0] * (KH - 1) - 1) / s[0] + 1, OW = (W + 2 * p[1] - d[1] * (KW - 1) - 1) / s[1] + 1;
  Tensor out = Tensor::zeros({N, O, OH, OW}, ir::DType::Float64);
  (void)C;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = bias ? bias->loadAt(o) : 0.0;
          const int64_t g = o / Og;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                int64_t ih = oh * s[0] - p[0] + i * d[0], iw = ow * s[1] - p[1] + j * d[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const Shape& xs = x.strides();
                acc += x.loadAt(n * xs[0] + (g * Cg + c) * xs[1] + ih * xs[2] + iw * xs[3]) * w.loadAt(((o * Cg + c) * KH + i) * KW + j);
              }
          out.storeAt(((n * O + o) * OH + oh) * OW + ow, acc);
        }
  return out;
}

TEST(ConvOps, Conv2dMatchesPyTorchWithGroupsStridePaddingDilation) {
  Tensor x = seq({1, 4, 5, 6}), w = seq({6, 2, 3, 2}, 5, 0.25, 2);
  Tensor b = fromValues({6}, {0.5, -1, 0.25, 2, 0, 1});
  Tensor r = conv(x, w, Val::of(b), {2, 1}, {1, 2}, {2, 1}, 2);
  // F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2)
  expectValues(
      r, {1, 6, 2, 9},
      {0.5,  -0.25,  -1.0,  0.875, 2.75,   1.125,  1.25,   0.375,  0.5,  0.5,  1.0,   0.25,  1.125,  0.25,   0.25,   0.25,   0.0,    0.5,
       -1.0, -1.125, 0.625, -1.5,  -1.875, -1.375, -1.75,  -1.375, -1.0, -1.0, -1.75, -2.5,  -0.625, 1.25,   -0.375, -0.25,  -1.125, -1.0,
       0.25, -0.5,   1.875, 1.375, 0.0,    -0.5,   -0.125, 0.25,   0.25, 0.25, 0.125, 1.875, -0.25,  -0.625, -0.125, -0.5,   -0.125, 0.25,
       2.0,  1.75,   2.625, 4.25,  2.375,  0.5,    0.375,  1.25,   2.0,  2.0,  1.75,  1.625, 1.125,  1.5,    3.625,  3.125,  2.125,  2.0,
       0.0,  -0.25,  -0.25, -0.25, 0.625,  -0.25,  0.625,  0.25,   0.0,  0.0,  -0.25, 0.625, 2.25,   0.375,  -1.5,   -1.625, -0.75,  0.0,
       1.0,  2.0,    1.75,  0.125, -0.625, -0.5,   1.375,  2.25,   1.0,  1.0,  0.75,  0.75,  0.75,   1.625,  0.75,   1.625,  1.25,   1.0});
  expectClose(r, refConv(x, w, &b, {2, 1}, {1, 2}, {2, 1}, 2));
}

TEST(ConvOps, Conv2dAgainstReferenceLoops) {
  struct Case {
    Shape x, w;
    Shape s, p, d;
    int64_t g;
    bool bias;
  };
  const Case cases[] = {
      {{2, 3, 8, 8}, {5, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},   // the seed CNN's shape family
      {{1, 4, 7, 9}, {4, 1, 3, 3}, {2, 2}, {1, 0}, {1, 2}, 4, false},  // depthwise
      {{2, 6, 5, 5}, {4, 3, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 2, true},   // 1x1 (no im2col)
      {{1, 2, 6, 6}, {3, 2, 1, 1}, {2, 2}, {1, 1}, {1, 1}, 1, true},   // strided padded 1x1
      {{1, 3, 10, 4}, {2, 3, 4, 2}, {3, 1}, {2, 1}, {2, 3}, 1, true},
  };
  for (const auto& c : cases) {
    Tensor x = seq(c.x, 13, 0.25, 6), w = seq(c.w, 7, 0.125, 3);
    Tensor b = seq({c.w[0]}, 3, 0.5, 1);
    Tensor r = conv(x, w, c.bias ? Val::of(b) : Val::none(), c.s, c.p, c.d, c.g);
    expectClose(r, refConv(x, w, c.bias ? &b : nullptr, c.s, c.p, c.d, c.g));
    // float64 and a non-contiguous input give the same numbers.
    Tensor xd = x.to(ir::DType::Float64), wd = w.to(ir::DType::Float64);
    expectClose(conv(xd, wd, c.bias ? Val::of(b.to(ir::DType::Float64)) : Val::none(), c.s, c.p, c.d, c.g), r, 1e-6);
  }
  // Channels-last storage (a permuted view) is read correctly.
  Tensor nhwc = seq({2, 6, 6, 3}, 11, 0.5, 5);
  Tensor x = nhwc.view({2, 3, 6, 6}, {108, 1, 18, 3}, 0);
  Tensor w = seq({4, 3, 3, 3}, 5, 0.25, 2);
  expectClose(conv(x, w, Val::none(), {1, 1}, {1, 1}, {1, 1}, 1), refConv(x, w, nullptr, {1, 1}, {1, 1}, {1, 1}, 1));
}

TEST(ConvOps, Conv1dAndTransposedMatchPyTorch) {
  Tensor x = seq({2, 3, 7}), w = seq({4, 3, 3}, 5, 0.25, 2);
  Tensor r = run("aten.convolution.default",
                 {Val::of(x), Val::of(w), Val::none(), ints({2}), ints({1}), ints({1}), Val::boolean(false), ints({0}), Val::integer(1)});
  // F.conv1d(x, w, None, stride=2, padding=1)
  expectValues(r, {2, 4, 4}, {-0.125, 0.375, -0.125, -0.125, 0.5, 0.25, 0.0, -0.75, 0.5, -0.5, -0.5, 0.5, -0.75, 0.0, 0.25, 0.5,
                              -0.125, 0.375, -0.125, -0.125, 0.5, 0.25, 0.0, -0.75, 0.5, -0.5, -0.5, 0.5, -0.75, 0.0, 0.25, 0.5});
  Tensor xt = seq({1, 4, 3, 3}), wt = seq({4, 3, 3, 3}, 5, 0.25, 2);
  Tensor bt = fromValues({6}, {1, -1, 0.5, 0.25, 0, 2});
  Tensor rt = conv(xt, wt, Val::of(bt), {2, 2}, {1, 1}, {1, 1}, 2, true, {1, 1});
  // F.conv_transpose2d(xt, wt, bt, stride=2, padding=1, output_padding=1, groups=2): first and last rows
  ASSERT_EQ(rt.sizes(), (Shape{1, 6, 6, 6}));
  std::vector<double> got = rt.toDoubles();
  const std::vector<double> head = {0.375, 1.5, 0.5, 1.125, 0.625, 1.25, 1.0, 1.375, 1.25, 1.25, 0.625, -0.125};
  const std::vector<double> tail = {1.375, 1.25, 1.75, 1.375, 1.875, 2.75, 2.875, 1.5};
  for (size_t i = 0; i < head.size(); ++i) EXPECT_DOUBLE_EQ(got[i], head[i]) << i;
  for (size_t i = 0; i < tail.size(); ++i) EXPECT_DOUBLE_EQ(got[got.size() - tail.size() + i], tail[i]) << i;
  // Channel 1 (second output channel of group 0) starts with these values in PyTorch.
  const std::vector<double> ch1 = {-1.125, -1.625, -1.25, -1.25, -1.375, -1.375};
  for (size_t i = 0; i < ch1.size(); ++i) EXPECT_DOUBLE_EQ(got[36 + i], ch1[i]) << i;
}

// kiln.convolution_weight_grad (autograd's weight gradient on CUDA, cuDNN's backward filter
// there) on the CPU against the definition: dW[o, c, i, j] = sum over n, oh, ow of
// gy[n, o, oh, ow] * x[n, group(o) * Cg + c, oh * s - p + i * d, ...]. 1-D cases as height 1.
TEST(ConvOps, WeightGradMatchesTheDefinition) {
  struct Case {
    Shape x, w;
    Shape s, p, d;
    int64_t g;
  };
  const Case cases[] = {
      {{2, 3, 8, 8}, {5, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1},
      {{2, 4, 7, 9}, {6, 2, 3, 2}, {2, 1}, {1, 2}, {2, 1}, 2},   // groups, stride, padding, dilation
      {{1, 4, 7, 9}, {4, 1, 3, 3}, {2, 2}, {1, 0}, {1, 2}, 4},   // depthwise
      {{3, 2, 6, 6}, {3, 2, 1, 1}, {2, 2}, {1, 1}, {1, 1}, 1},   // strided padded 1x1
      {{2, 3, 1, 11}, {4, 3, 1, 3}, {1, 2}, {0, 1}, {1, 2}, 1},  // a 1-D problem as 2-D
  };
  for (const auto& c : cases) {
    Tensor x = seq(c.x, 13, 0.25, 6), w = seq(c.w, 7, 0.125, 3);
    Tensor y = conv(x, w, Val::none(), c.s, c.p, c.d, c.g);
    Tensor gy = seq(y.sizes(), 5, 0.5, 2);
    Tensor dw = run("kiln.convolution_weight_grad.default",
                    {Val::of(gy), Val::of(x), ints(c.w), ints(c.s), ints(c.p), ints(c.d), Val::integer(c.g)});
    ASSERT_EQ(dw.sizes(), c.w);
    const int64_t N = c.x[0], H = c.x[2], W = c.x[3], O = c.w[0], Cg = c.w[1], Og = O / c.g;
    const int64_t OH = y.sizes()[2], OW = y.sizes()[3];
    Tensor want = Tensor::zeros(c.w, ir::DType::Float64);
    for (int64_t o = 0; o < O; ++o)
      for (int64_t ch = 0; ch < Cg; ++ch)
        for (int64_t i = 0; i < c.w[2]; ++i)
          for (int64_t j = 0; j < c.w[3]; ++j) {
            double acc = 0;
            for (int64_t n = 0; n < N; ++n)
              for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                  const int64_t ih = oh * c.s[0] - c.p[0] + i * c.d[0], iw = ow * c.s[1] - c.p[1] + j * c.d[1];
                  if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                  acc += gy.loadAt(((n * O + o) * OH + oh) * OW + ow) * x.loadAt(((n * c.x[1] + (o / Og) * Cg + ch) * H + ih) * W + iw);
                }
            want.storeAt(((o * Cg + ch) * c.w[2] + i) * c.w[3] + j, acc);
          }
    expectClose(dw, want);
    if (c.x[2] == 1) {  // the same problem as 3-D tensors (conv1d)
      Shape x3{c.x[0], c.x[1], c.x[3]}, w3{c.w[0], c.w[1], c.w[3]}, g3{gy.sizes()[0], gy.sizes()[1], gy.sizes()[3]};
      Tensor d1 = run("kiln.convolution_weight_grad.default",
                      {Val::of(gy.view(g3, Tensor::contiguousStrides(g3), 0)), Val::of(x.view(x3, Tensor::contiguousStrides(x3), 0)),
                       ints(w3), ints({c.s[1]}), ints({c.p[1]}), ints({c.d[1]}), Val::integer(c.g)});
      ASSERT_EQ(d1.sizes(), w3);
      expectClose(d1.view(c.w, Tensor::contiguousStrides(c.w), 0), want);
    }
  }
  // A grad_output that is not the convolution's output shape is an error, not a wrong answer.
  Tensor x = seq({1, 2, 5, 5}), gy = seq({1, 3, 4, 4});
  EXPECT_THROW(run("kiln.convolution_weight_grad.default",
                   {Val::of(gy), Val::of(x), ints({3, 2, 3, 3}), ints({1, 1}), ints({0, 0}), ints({1, 1}), Val::integer(1)}),
               tensor::TorchError);
}

TEST(ConvOps, ConvErrorsWordedLikePyTorch) {
  Tensor w = seq({2, 3, 3, 3});
  EXPECT_EQ(
      errorOf([&] {
        conv(seq({1, 4, 5, 5}), w, Val::none(), {1, 1}, {0, 0}, {1, 1}, 1);
      }),
      "RuntimeError: Given groups=1, weight of size [2, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 channels, but got 4 channels instead");
  EXPECT_EQ(
      errorOf([&] {
        conv(seq({1, 4, 5, 5}), seq({3, 2, 3, 3}), Val::none(), {1, 1}, {0, 0}, {1, 1}, 2);
      }),
      "RuntimeError: Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 2, 3, 3]] instead");
  EXPECT_EQ(
      errorOf([&] {
        conv(seq({1, 3, 2, 2}), w, Val::none(), {1, 1}, {0, 0}, {1, 1}, 1);
      }),
      "RuntimeError: Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual "
      "input size");
  EXPECT_EQ(
      errorOf([&] {
        conv(seq({1, 3, 5, 5}), w, Val::of(seq({3})), {1, 1}, {0, 0}, {1, 1}, 1);
      }),
      "RuntimeError: Given weight of size [2, 3, 3, 3], expected bias to be 1-dimensional with 2 elements, but got bias of size [3] instead");
  EXPECT_EQ(
      errorOf([&] {
        conv(seq({3, 5, 5}), w, Val::none(), {1, 1}, {0, 0}, {1, 1}, 1);
      }),
      "RuntimeError: Expected 4-dimensional input for 4-dimensional weight [2, 3, 3, 3], but got 3-dimensional input of size [3, 5, 5] "
      "instead");
  EXPECT_EQ(errorOf([&] {
              conv(seq({1, 3, 5, 5}), w, Val::none(), {0, 1}, {0, 0}, {1, 1}, 1);
            }),
            "RuntimeError: non-positive stride is not supported");
  EXPECT_EQ(errorOf([&] {
              conv(seq({1, 3, 5, 5}), w, Val::none(), {1, 1}, {-1, 0}, {1, 1}, 1);
            }),
            "RuntimeError: negative padding is not supported");
  EXPECT_EQ(errorOf([&] {
              conv(seq({1, 3, 5, 5}), seq({2, 3, 3, 3}, 7, 0.5, 3, ir::DType::Float64), Val::none(), {1, 1}, {0, 0}, {1, 1}, 1);
            }),
            "RuntimeError: expected scalar type Float but found Double");
  EXPECT_EQ(errorOf([&] {
              conv(seq({1, 3, 5, 5}), w, Val::of(seq({2}, 7, 0.5, 3, ir::DType::Float64)), {1, 1}, {0, 0}, {1, 1}, 1);
            }),
            "RuntimeError: Input type (float) and bias type (double) should be the same");
}

Val pairs(int64_t a, int64_t b) { return ints({a, b}); }

TEST(PoolOps, MaxPoolMatchesPyTorch) {
  Tensor x = seq({1, 2, 5, 5}, 11, 0.5, 5);
  // F.max_pool2d(x, 3, stride=2, padding=1)
  expectValues(run("aten.max_pool2d.default", {Val::of(x), pairs(3, 3), pairs(2, 2), pairs(1, 1)}), {1, 2, 3, 3},
               {0.5, 1.5, 2.0, 2.5, 1.5, 2.0, 2.5, 2.5, 1.5, 2.0, 2.5, 1.0, 2.0, 2.5, 2.5, 1.5, 2.5, 2.5});
  // F.max_pool2d(x, 2, stride=1, dilation=2)
  expectValues(run("aten.max_pool2d.default", {Val::of(x), pairs(2, 2), pairs(1, 1), pairs(0, 0), pairs(2, 2)}), {1, 2, 3, 3},
               {2.5, -1.0, -0.5, 1.0, 1.5, 2.0, 2.5, 2.5, -1.0, 0.0, 0.5, 1.0, 2.5, 2.5, 2.5, -0.5, 0.0, 0.5});
  // F.max_pool2d(x, 2, ceil_mode=True, return_indices=True)
  ops::EagerDispatcher d;
  Val vi =
      d.call("aten.max_pool2d_with_indices.default", {Val::of(x), pairs(2, 2), pairs(2, 2), pairs(0, 0), pairs(1, 1), Val::boolean(true)});
  ASSERT_EQ(vi.list.size(), 2u);
  expectValues(vi.list[0].t, {1, 2, 3, 3}, {0.5, 1.5, 2.0, 2.5, 1.0, 1.5, 2.5, -2.0, -1.5, 2.0, 2.5, 1.0, 1.5, 2.5, 0.5, -1.5, -0.5, 0.0});
  EXPECT_EQ(vi.list[1].t.dtype(), ir::DType::Int64);
  expectValues(vi.list[1].t, {1, 2, 3, 3}, {6, 8, 9, 10, 18, 19, 21, 23, 24, 6, 7, 4, 16, 18, 14, 21, 23, 24});
  // Unbatched input, NaN propagates, a stride-2 (non-contiguous) input is read correctly.
  Tensor un = fromValues({1, 2, 2}, {1, NAN, 3, 4});
  expectValues(run("aten.max_pool2d.default", {Val::of(un), pairs(2, 2)}), {1, 1, 1}, {NAN});
  Tensor wide = seq({1, 1, 4, 8}, 9, 1, 4);
  Tensor strided = wide.view({1, 1, 4, 4}, {32, 32, 8, 2}, 0);
  expectValues(run("aten.max_pool2d.default", {Val::of(strided), pairs(2, 2)}), {1, 1, 2, 2},
               {std::max({wide.loadAt(0), wide.loadAt(2), wide.loadAt(8), wide.loadAt(10)}),
                std::max({wide.loadAt(4), wide.loadAt(6), wide.loadAt(12), wide.loadAt(14)}),
                std::max({wide.loadAt(16), wide.loadAt(18), wide.loadAt(24), wide.loadAt(26)}),
                std::max({wide.loadAt(20), wide.loadAt(22), wide.loadAt(28), wide.loadAt(30)})});
}

TEST(PoolOps, AvgPoolMatchesPyTorch) {
  Tensor x = seq({1, 2, 5, 5}, 11, 0.5, 5);
  // F.avg_pool2d(x, 3, stride=2, padding=1)
  expectValues(run("aten.avg_pool2d.default", {Val::of(x), pairs(3, 3), pairs(2, 2), pairs(1, 1)}), {1, 2, 3, 3},
               {-0.4444444477558136, -0.1666666716337204, 0.2222222238779068, 0.0, -0.1666666716337204, 0.3888888955116272,
                0.4444444477558136, -0.0555555559694767, -0.1111111119389534, 0.2222222238779068, 0.2222222238779068, -0.3333333432674408,
                0.3888888955116272, 0.7222222089767456, -0.4444444477558136, -0.1111111119389534, 0.3333333432674408, -0.0555555559694767});
  // count_include_pad=False
  expectValues(
      run("aten.avg_pool2d.default", {Val::of(x), pairs(3, 3), pairs(2, 2), pairs(1, 1), Val::boolean(false), Val::boolean(false)}),
      {1, 2, 3, 3},
      {-1.0, -0.25, 0.5, 0.0, -0.1666666716337204, 0.5833333134651184, 1.0, -0.0833333358168602, -0.25, 0.5, 0.3333333432674408, -0.75,
       0.5833333134651184, 0.7222222089767456, -0.6666666865348816, -0.25, 0.5, -0.125});
  // ceil_mode=True, divisor_override=3
  expectValues(
      run("aten.avg_pool2d.default",
          {Val::of(x), pairs(2, 2), pairs(2, 2), pairs(0, 0), Val::boolean(true), Val::boolean(true), Val::integer(3)}),
      {1, 2, 3, 3},
      {-1.3333333730697632, 0.0, 0.5, -0.1666666716337204, -0.6666666865348816, 0.1666666716337204, 1.5, -1.5, -0.5, 0.6666666865348816,
       0.1666666716337204, -0.3333333432674408, 0.0, 1.3333333730697632, -0.6666666865348816, -1.1666666269302368, -0.5, 0.0});
}

TEST(PoolOps, AdaptiveAvgPoolMatchesPyTorch) {
  Tensor x = seq({1, 2, 5, 5}, 11, 0.5, 5);
  // F.adaptive_avg_pool2d(x, (3, 2)): overlapping windows of uneven size
  expectValues(run("aten._adaptive_avg_pool2d.default", {Val::of(x), pairs(3, 2)}), {1, 2, 3, 2},
               {-0.75, 0.25, -0.0555555559694767, 0.3333333432674408, 0.3333333432674408, -0.5, 0.75, -0.0833333358168602,
                0.8333333134651184, 0.0, 0.0, 0.0833333358168602});
  expectValues(run("aten._adaptive_avg_pool2d.default", {Val::of(x), pairs(1, 1)}), {1, 2, 1, 1}, {-0.24, -0.06});
  EXPECT_EQ(run("aten._adaptive_avg_pool2d.default", {Val::of(seq({3, 4, 4})), pairs(2, 2)}).sizes(), (Shape{3, 2, 2}));
}

TEST(PoolOps, PoolErrorsWordedLikePyTorch) {
  Tensor x = seq({1, 3, 5, 5});
  EXPECT_EQ(errorOf([&] {
              run("aten.max_pool2d.default", {Val::of(x), pairs(2, 2), pairs(2, 2), pairs(2, 2)});
            }),
            "RuntimeError: pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1");
  EXPECT_EQ(errorOf([&] {
              run("aten.max_pool2d.default", {Val::of(seq({1, 3, 1, 1})), pairs(2, 2)});
            }),
            "RuntimeError: Given input size: (3x1x1). Calculated output size: (3x0x0). Output size is too small");
  EXPECT_EQ(errorOf([&] {
              run("aten.avg_pool2d.default", {Val::of(seq({5, 5})), pairs(2, 2)});
            }),
            "RuntimeError: non-empty 3D or 4D (batch mode) tensor expected for input");
  EXPECT_EQ(errorOf([&] {
              run("aten._adaptive_avg_pool2d.default", {Val::of(seq({3})), pairs(1, 1)});
            }),
            "RuntimeError: adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [3]");
}

TEST(PadOps, ConstantPadMatchesPyTorch) {
  Tensor x = seq({2, 3});
  // F.pad(x, (1, 2, 1, 0), value=9.0)
  expectValues(run("aten.constant_pad_nd.default", {Val::of(x), ints({1, 2, 1, 0}), Val::real(9.0)}), {3, 6},
               {9, 9, 9, 9, 9, 9, 9, -1.5, -1.0, -0.5, 9, 9, 9, 0.0, 0.5, 1.0, 9, 9});
  // Negative padding crops: F.pad(x, (-1, 1))
  expectValues(run("aten.constant_pad_nd.default", {Val::of(x), ints({-1, 1})}), {2, 3}, {-1.0, -0.5, 0.0, 0.5, 1.0, 0.0});
  // Integer tensors keep their dtype and exact values; a transposed input is read correctly.
  Tensor xi = seq({2, 2}, 5, 1, 0, ir::DType::Int64);
  Tensor ti = xi.view({2, 2}, {1, 2}, 0);
  Tensor ri = run("aten.constant_pad_nd.default", {Val::of(ti), ints({0, 1, 1, 0}), Val::integer(7)});
  EXPECT_EQ(ri.dtype(), ir::DType::Int64);
  expectValues(ri, {3, 3}, {7, 7, 7, 0, 2, 7, 1, 3, 7});
  EXPECT_EQ(errorOf([&] {
              run("aten.constant_pad_nd.default", {Val::of(x), ints({1, 2, 3})});
            }),
            "RuntimeError: Length of pad must be even but instead it equals 3");
  EXPECT_EQ(errorOf([&] {
              run("aten.constant_pad_nd.default", {Val::of(x), ints({-2, -2})});
            }),
            "RuntimeError: The input size 3, plus negative padding -2 and -2 resulted in a negative output size, which is invalid. Check "
            "dimension 1 of your input.");
}

}  // namespace
}  // namespace kiln::linalg_test
