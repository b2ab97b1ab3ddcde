// f32 convolutions on oneDNN (engine/ops/onednn_conv.*) against the f64 path of the same ops,
// which is im2col + OpenBLAS (oneDNN has no f64 convolution), on random problems: groups,
// depthwise, stride 2 with sizes a stride does not divide, dilation, padding, 1x1, 1-D, batch 1,
// with and without bias. Forward, transposed (oneDNN's backward data, also autograd's input
// gradient), kiln.convolution_weight_grad (backward weights), and the derivative of the weight
// gradient (double backward) by its adjoint identities.
#include "engine/ops/onednn_conv.h"
#include "tests/ops_linalg/linalg_test_util.h"

#include <random>

namespace kiln::linalg_test {
namespace {

struct Problem {
  Shape x, w;  // w as a (non-transposed) convolution's weight [O, C/G, KH, KW] or [O, C/G, K]
  Shape s, p, d;
  int64_t g;
  bool bias;
};

// Problems; 1-D ones have 3-D x and w.
const Problem kProblems[] = {
    {{2, 3, 8, 8}, {5, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
    {{2, 4, 7, 9}, {6, 2, 3, 2}, {2, 1}, {1, 2}, {2, 1}, 2, true},    // groups, stride, padding, dilation
    {{1, 4, 9, 7}, {4, 1, 3, 3}, {2, 2}, {1, 0}, {1, 2}, 4, false},   // depthwise, batch 1
    {{3, 8, 6, 6}, {16, 8, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},   // 1x1
    {{2, 6, 10, 11}, {4, 3, 3, 3}, {2, 2}, {0, 1}, {1, 1}, 2, true},  // stride 2, sizes it leaves a remainder of
    {{1, 3, 5, 5}, {2, 3, 5, 5}, {1, 1}, {2, 2}, {1, 1}, 1, false},   // kernel as large as the input
    {{2, 5, 17}, {7, 5, 3}, {1}, {1}, {1}, 1, true},                  // 1-D
    {{1, 4, 20}, {6, 2, 4}, {3}, {2}, {2}, 2, false},                 // 1-D: groups, stride 3, dilation, batch 1
};

Tensor randomTensor(const Shape& s, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Tensor t = Tensor::empty(s, ir::DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i) t.storeAt(i, u(rng));
  return t;
}

Tensor f64(const Tensor& t) { return t.to(ir::DType::Float64); }

Val shapeArgs(const Shape& v) { return ints(v); }

Tensor conv(const Problem& c, const Tensor& x, const Tensor& w, const Val& bias, bool transposed, const Shape& outPad) {
  return run("aten.convolution.default", {Val::of(x), Val::of(w), bias, shapeArgs(c.s), shapeArgs(c.p), shapeArgs(c.d),
                                          Val::boolean(transposed), shapeArgs(outPad), Val::integer(c.g)});
}

Tensor weightGrad(const Problem& c, const Tensor& gy, const Tensor& x) {
  return run("kiln.convolution_weight_grad.default",
             {Val::of(gy), Val::of(x), ints(c.w), shapeArgs(c.s), shapeArgs(c.p), shapeArgs(c.d), Val::integer(c.g)});
}

// The problem as oneDNN sees it (1-D as height 1), to check it takes it rather than declining.
ops::onednn::ConvShape shapeOf(const Problem& c, const Shape& y) {
  const bool oneD = c.x.size() == 3;
  auto at = [&](const Shape& v, size_t i) { return oneD ? (i == 0 ? int64_t{1} : v[0]) : v[i]; };
  auto sp = [&](const Shape& v, size_t i, int64_t one) { return oneD ? (i == 0 ? one : v[0]) : v[i]; };
  Shape xs(c.x.begin() + 2, c.x.end()), ks(c.w.begin() + 2, c.w.end()), ys(y.begin() + 2, y.end());
  return {c.x[0],    c.x[1], at(xs, 0),     at(xs, 1),     c.w[0],        at(ks, 0),     at(ks, 1),     at(ys, 0),
          at(ys, 1), c.g,    sp(c.s, 0, 1), sp(c.s, 1, 1), sp(c.p, 0, 0), sp(c.p, 1, 0), sp(c.d, 0, 1), sp(c.d, 1, 1)};
}

double dot(const Tensor& a, const Tensor& b) {
  std::vector<double> x = a.toDoubles(), y = b.toDoubles();
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

TEST(OnednnConv, ForwardTransposedAndWeightGradMatchTheIm2colPath) {
  std::mt19937 rng(1234);
  for (const auto& c : kProblems) {
    SCOPED_TRACE(tensor::shapeStr(c.x) + " * " + tensor::shapeStr(c.w) + " groups " + std::to_string(c.g));
    Tensor x = randomTensor(c.x, rng), w = randomTensor(c.w, rng), b = randomTensor({c.w[0]}, rng);
    const Shape zeros(c.s.size(), 0);
    // Forward, with the bias fused.
    Tensor y = conv(c, x, w, c.bias ? Val::of(b) : Val::none(), false, zeros);
    Tensor y64 = conv(c, f64(x), f64(w), c.bias ? Val::of(f64(b)) : Val::none(), false, zeros);
    ASSERT_EQ(y.dtype(), ir::DType::Float32);
    expectClose(y, y64, 1e-5);
    // oneDNN took the problem (no silent fall-back to im2col): the same output from it directly.
    Tensor direct = Tensor::empty(y.sizes(), ir::DType::Float32);
    Tensor xc = x.contiguous(), wc = w.contiguous();
    ASSERT_TRUE(ops::onednn::convForward(shapeOf(c, y.sizes()), xc.ptr<float>(), wc.ptr<float>(), c.bias ? b.ptr<float>() : nullptr,
                                         direct.ptr<float>()));
    expectClose(direct, y64, 1e-5);

    // The weight gradient (oneDNN's backward weights) against im2col's in f64.
    Tensor gy = randomTensor(y.sizes(), rng);
    Tensor dw = weightGrad(c, gy, x), dw64 = weightGrad(c, f64(gy), f64(x));
    expectClose(dw, dw64, 1e-5);
    Tensor dwDirect = Tensor::empty(c.w, ir::DType::Float32);
    ASSERT_TRUE(ops::onednn::convBackwardWeights(shapeOf(c, y.sizes()), xc.ptr<float>(), gy.ptr<float>(), dwDirect.ptr<float>()));
    expectClose(dwDirect, dw64, 1e-5);

    // The transposed convolution of gy with w (oneDNN's backward data): autograd's input
    // gradient, padded out to x's size by output_padding. Its adjoint identity with the forward
    // holds too: <conv(x, w), gy> = <x, conv_transpose(gy, w)>.
    Shape outPad;
    for (size_t i = 2; i < c.x.size(); ++i)
      outPad.push_back(c.x[i] - ((y.sizes()[i] - 1) * c.s[i - 2] - 2 * c.p[i - 2] + c.d[i - 2] * (c.w[i] - 1) + 1));
    Tensor dx = conv(c, gy, w, Val::none(), true, outPad), dx64 = conv(c, f64(gy), f64(w), Val::none(), true, outPad);
    ASSERT_EQ(dx.sizes(), c.x);
    expectClose(dx, dx64, 1e-5);
    Tensor y0 = conv(c, f64(x), f64(w), Val::none(), false, zeros);
    EXPECT_NEAR(dot(y0, gy), dot(x, dx64), 1e-9 * std::max(1.0, std::fabs(dot(y0, gy))));
    Tensor dxDirect = Tensor::empty(c.x, ir::DType::Float32);
    ASSERT_TRUE(ops::onednn::convBackwardData(shapeOf(c, y.sizes()), gy.ptr<float>(), wc.ptr<float>(), dxDirect.ptr<float>()));
    expectClose(dxDirect, dx64, 1e-5);

    // A transposed convolution with a bias: oneDNN's backward data, then the bias per channel.
    // Its weight is [in channels, out channels / groups, k...]: w read as [O, C/G, ...] maps
    // O channels to C / G * groups.
    Tensor tb = randomTensor({c.x[1]}, rng);
    Tensor t32 = conv(c, gy, w, Val::of(tb), true, outPad), t64 = conv(c, f64(gy), f64(w), Val::of(f64(tb)), true, outPad);
    expectClose(t32, t64, 1e-5);
  }
}

// The derivative of kiln.convolution_weight_grad (what double backward through a convolution
// runs): weight_grad(g, x) is bilinear, so for a gradient gw of its result the formula's
// gradients gg, gx must satisfy <gw, weight_grad(dg, x)> = <gg, dg> and
// <gw, weight_grad(g, dx)> = <gx, dx> for any directions dg, dx. In f64 (exact up to rounding).
TEST(OnednnConv, WeightGradDerivativeSatisfiesItsAdjointIdentities) {
  std::mt19937 rng(99);
  const ops::OpDef& def = ops::op("kiln.convolution_weight_grad.default");
  ASSERT_TRUE(def.backward);
  for (const auto& c : kProblems) {
    SCOPED_TRACE(tensor::shapeStr(c.x) + " * " + tensor::shapeStr(c.w));
    Tensor x = f64(randomTensor(c.x, rng)), w = f64(randomTensor(c.w, rng));
    Tensor y = conv(c, x, w, Val::none(), false, Shape(c.s.size(), 0));
    Tensor g = f64(randomTensor(y.sizes(), rng)), gw = f64(randomTensor(c.w, rng));
    Tensor dg = f64(randomTensor(y.sizes(), rng)), dx = f64(randomTensor(c.x, rng));
    std::vector<Val> args{Val::of(g), Val::of(x), ints(c.w), shapeArgs(c.s), shapeArgs(c.p), shapeArgs(c.d), Val::integer(c.g)};
    Val out = Val::of(weightGrad(c, g, x)), gradOut = Val::of(gw);
    ops::GradContext ctx{args, out, gradOut, {true, true, false, false, false, false, false}};
    ops::EagerDispatcher d;
    std::vector<Val> grads = def.backward(d, ctx);
    ASSERT_GE(grads.size(), 2u);
    ASSERT_EQ(grads[0].t.sizes(), g.sizes());
    ASSERT_EQ(grads[1].t.sizes(), x.sizes());
    const double a = dot(gw, weightGrad(c, dg, x)), b = dot(grads[0].t, dg);
    EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::fabs(a)));
    const double e = dot(gw, weightGrad(c, g, dx)), f = dot(grads[1].t, dx);
    EXPECT_NEAR(e, f, 1e-9 * std::max(1.0, std::fabs(e)));
  }
}

}  // namespace
}  // namespace kiln::linalg_test
